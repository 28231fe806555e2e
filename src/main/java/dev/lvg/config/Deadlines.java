package dev.lvg.config;

/**
 * How long a peer may stall the gateway: a new connection must send a complete request head within
 * {@code headTimeoutMillis}, a kept-alive one its next within {@code idleTimeoutMillis}, and a
 * request its whole body within {@code bodyTimeoutMillis}; at most {@code maxConnections} API
 * connections are open at once; a PostgreSQL statement runs at most {@code statementTimeoutMillis}
 * (a read's: {@code readTimeoutMillis}, far below) and a storage call {@code storageTimeoutMillis}.
 * On shutdown requests in progress get {@code shutdownGraceSeconds} to finish.
 */
public record Deadlines(
    int headTimeoutMillis,
    int idleTimeoutMillis,
    int bodyTimeoutMillis,
    int maxConnections,
    int statementTimeoutMillis,
    int readTimeoutMillis,
    int storageTimeoutMillis,
    int shutdownGraceSeconds) {

  static Deadlines from(Settings s) {
    return new Deadlines(
        s.integer("LVG_HTTP_HEAD_TIMEOUT_MS", 10_000, 100, 3_600_000),
        s.integer("LVG_HTTP_IDLE_TIMEOUT_MS", 60_000, 100, 3_600_000),
        s.integer("LVG_HTTP_BODY_TIMEOUT_MS", 30_000, 100, 3_600_000),
        s.integer("LVG_HTTP_MAX_CONNECTIONS", 10_000, 1, 1_000_000),
        s.integer("LVG_DB_STATEMENT_TIMEOUT_MS", 10_000, 100, 3_600_000),
        s.integer("LVG_DB_READ_TIMEOUT_MS", 2_000, 50, 3_600_000),
        s.integer("LVG_STORAGE_TIMEOUT_MS", 15_000, 100, 3_600_000),
        s.integer("LVG_SHUTDOWN_GRACE", 20, 0, 3600));
  }
}
