package dev.lvg.db;

import dev.lvg.http.Failures;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the named Postgres pools of a gateway (the API's, shared between its verticles, and the
 * health check's). It is created outside any verticle, so its connections are spread over {@code
 * eventLoops} event loops.
 */
public final class Database {
  private static final Logger LOG = LoggerFactory.getLogger(Database.class);

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

  /**
   * Completes once PostgreSQL answers, trying again with backoff (0.5 s doubling to 5 s) for up to
   * {@code timeoutSeconds} while it cannot be reached, so a gateway started beside a database that
   * is still starting waits for it instead of exiting; other failures end start-up at once.
   */
  public static Future<Void> awaitAnswer(Vertx vertx, Pool pool, int timeoutSeconds) {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutSeconds);
    return attempt(vertx, pool, 1, 500, deadline);
  }

  private static Future<Void> attempt(
      Vertx vertx, Pool pool, int attempt, long delayMillis, long deadline) {
    return pool.query("SELECT 1")
        .execute()
        .<Void>mapEmpty()
        .recover(
            failure -> {
              boolean unreachable = Failures.classify(failure).kind() == Failures.Kind.UNAVAILABLE;
              if (!unreachable || System.nanoTime() + delayMillis * 1_000_000 > deadline) {
                return Future.failedFuture(failure);
              }
              LOG.warn(
                  "PostgreSQL does not answer yet (attempt {}): {}; trying again in {} ms",
                  attempt,
                  failure.toString(),
                  delayMillis);
              return vertx
                  .timer(delayMillis)
                  .compose(
                      fired ->
                          attempt(
                              vertx, pool, attempt + 1, Math.min(delayMillis * 2, 5000), deadline));
            });
  }
}
