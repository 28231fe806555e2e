/**
 * The gateway's settings: one immutable record read from {@code conf/} and {@code LVG_*} variables,
 * checked at start-up with a message naming the bad key. Uses storage (the root's shape) and
 * nothing else of the gateway.
 */
package dev.lvg.config;
