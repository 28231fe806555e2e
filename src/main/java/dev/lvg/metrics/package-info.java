/** The gateway's meters, with bounded label sets. Uses overload and http. */
package dev.lvg.metrics;
