package dev.lvg.db;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/**
 * Builds the named Postgres pools of a gateway (the API's, shared between its verticles, and the
 * health check's). It is created outside any verticle, so its connections are spread over {@code
 * eventLoops} event loops.
 */
public final class Database {
  private Database() {}

  public static Pool pool(
      Vertx vertx, String url, String name, int maxSize, int queueSize, int eventLoops) {
    return pool(vertx, url, name, maxSize, queueSize, eventLoops, 0);
  }

  /**
   * As above, with every statement cancelled after {@code statementTimeoutMillis} (0: never), so
   * that a stalled database (a lock held, a disk that hangs) answers 503 instead of holding a
   * request and a connection without end.
   */
  public static Pool pool(
      Vertx vertx,
      String url,
      String name,
      int maxSize,
      int queueSize,
      int eventLoops,
      int statementTimeoutMillis) {
    PgConnectOptions connect =
        PgConnectOptions.fromUri(url)
            .setCachePreparedStatements(true)
            .setPreparedStatementCacheMaxSize(256);
    // Every statement of the gateway is a lookup by key, so one plan per prepared statement
    // serves every call: planning each call (a custom plan, which PostgreSQL keeps choosing for
    // batches smaller than it guesses) costs more than running it. A plan made while a table was
    // small (a fresh install, a benchmark) must not scan that table once it has grown, so the
    // sessions never choose a sequential scan where an index serves.
    connect.addProperty("plan_cache_mode", "force_generic_plan");
    connect.addProperty("enable_seqscan", "off");
    connect.addProperty("statement_timeout", Integer.toString(statementTimeoutMillis));
    PoolOptions options =
        new PoolOptions()
            .setShared(true)
            .setName(name)
            .setMaxSize(maxSize)
            .setMaxWaitQueueSize(queueSize)
            .setEventLoopSize(eventLoops);
    return PgBuilder.pool().with(options).connectingTo(connect).using(vertx).build();
  }
}
