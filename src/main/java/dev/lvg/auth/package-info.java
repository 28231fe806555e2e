/**
 * Who a request is: API keys and bearer tokens, the right a route's declaration needs, and how a
 * feature serves an operation ({@code Declaration}, {@code Routes}). Uses tenancy, config and http.
 */
package dev.lvg.auth;
