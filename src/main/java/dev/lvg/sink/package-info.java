/**
 * Sinks: the change feed published into brokers (NATS JetStream) from the log, by a cursor per sink
 * and tenant and a lease per sink. Uses the platform, the feed's log, config and tenancy.
 */
package dev.lvg.sink;
