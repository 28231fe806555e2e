package dev.lvg;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A lock held on a table over JDBC so that racing requests pile up behind it: a test sends them,
 * waits until PostgreSQL shows them (or the gateway's queue holds them), then lets go, and so knows
 * they overlapped.
 */
public final class TableLock implements AutoCloseable {
  private final Connection connection;
  private final TestGateway gw;

  /** Blocks every insert into {@code table} until closed. */
  public TableLock(TestGateway gw, String table) throws SQLException {
    this.gw = gw;
    this.connection = gw.jdbc();
    connection.setAutoCommit(false);
    try (Statement statement = connection.createStatement()) {
      statement.execute("LOCK TABLE " + table + " IN SHARE ROW EXCLUSIVE MODE");
    }
  }

  /** Waits until {@code sessions} sessions of this database wait for a lock. */
  public void awaitSessionsWaiting(int sessions) throws Exception {
    awaitUntil(
        () -> {
          try (Connection probe = gw.jdbc();
              Statement statement = probe.createStatement();
              ResultSet rows =
                  statement.executeQuery(
                      "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                          + " AND wait_event_type = 'Lock'")) {
            rows.next();
            return rows.getInt(1) >= sessions;
          }
        },
        "sessions waiting for the lock: " + sessions);
  }

  /**
   * Waits until {@code requests} requests wait in the gateway: for a group commit, or for a slot of
   * admission control.
   */
  public void awaitQueued(int requests) throws Exception {
    awaitUntil(
        () -> {
          Metrics metrics = Metrics.scrape(gw);
          return metrics.value("lvg_commit_queue_waiting")
                  + metrics.value("lvg_admission_waiting{class=\"writes\"}")
              >= requests;
        },
        "requests waiting in the gateway: " + requests);
  }

  /** A condition checked every few milliseconds. */
  public interface Condition {
    boolean holds() throws Exception;
  }

  private static void awaitUntil(Condition condition, String what) throws Exception {
    long deadline = System.nanoTime() + 30_000_000_000L;
    while (!condition.holds()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("never reached: " + what);
      }
      Thread.sleep(5);
    }
  }

  /** Lets go; closing again does nothing. */
  @Override
  public void close() throws SQLException {
    if (!connection.isClosed()) {
      connection.commit();
      connection.close();
    }
  }
}
