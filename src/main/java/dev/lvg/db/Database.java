package dev.lvg.db;

import dev.lvg.http.Failures;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnectOptions;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the named Postgres pools of a gateway (the API's, shared between its verticles, and the
 * health check's). It is created outside any verticle, so its connections are spread over {@code
 * eventLoops} event loops. Also: waiting for PostgreSQL at start-up, and repeating a read that met
 * a connection the pool had already lost.
 */
public final class Database {
  private static final Logger LOG = LoggerFactory.getLogger(Database.class);
  private static final String HAS_CITUS =
      "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')";

  /** Tries of a read whose connection turned out to be closed. */
  private static final int READ_ATTEMPTS = 3;

  private static final long READ_PAUSE_MILLIS = 10;

  private Database() {}

  /**
   * Runs {@code read} on a pool, and again 10 ms later (up to three times in all) when it failed on
   * a closed connection: just after a connection broke, the pool may hand it out once more before
   * it hears it closed, so a read that follows a broken statement can fail for no reason of its
   * own. Only for statements that are safe to repeat.
   */
  public static <T> Future<T> readAgainIfClosed(Vertx vertx, Supplier<Future<T>> read) {
    return readAgainIfClosed(vertx, read, READ_ATTEMPTS);
  }

  private static <T> Future<T> readAgainIfClosed(
      Vertx vertx, Supplier<Future<T>> read, int attempts) {
    return read.get()
        .recover(
            error ->
                attempts > 1 && error instanceof ClosedConnectionException
                    ? vertx
                        .timer(READ_PAUSE_MILLIS, TimeUnit.MILLISECONDS)
                        .compose(paused -> readAgainIfClosed(vertx, read, attempts - 1))
                    : Future.failedFuture(error));
  }

  /** A pool for administration and tests: the planner's own choices, no statement timeout. */
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
    PgConnectOptions connect = cached(url, statementTimeoutMillis);
    return PgBuilder.pool()
        .with(poolOptions(name, maxSize, queueSize, eventLoops))
        .connectingTo(connect)
        .using(vertx)
        .build();
  }

  /**
   * The API's pool, whose statements are all lookups by key: as {@link #pool(Vertx, String, String,
   * int, int, int, int)}, with sessions that never choose a sequential scan where an index serves
   * (a plan made while a table was small, on a fresh install or in a benchmark, must not scan it
   * once it has grown) and, with {@code genericPlans} and except on Citus, one generic plan per
   * prepared statement.
   */
  public static Pool keyedPool(
      Vertx vertx,
      String url,
      String name,
      int maxSize,
      int queueSize,
      int eventLoops,
      int statementTimeoutMillis,
      boolean genericPlans) {
    PgConnectOptions planned = cached(url, statementTimeoutMillis);
    planned.addProperty("enable_seqscan", "off");
    // With sequential scans priced out, a statement that must still scan a table (a one-row
    // table such as feed_epoch, or a sum over feed_heads) is costed far above the JIT thresholds,
    // and PostgreSQL compiled it with LLVM on every call: about 0.1 s of CPU for a lookup that
    // takes 0.1 ms. No statement of the gateway runs long enough for JIT to pay.
    planned.addProperty("jit", "off");
    // Every statement of the gateway is a lookup by key, so one plan per prepared statement
    // serves every call: planning each call (a custom plan, which PostgreSQL keeps choosing for
    // batches smaller than it guesses) costs more than running it. Not on Citus, which plans a
    // distributed statement only with its parameters' values.
    PgConnectOptions generic = new PgConnectOptions(planned);
    generic.addProperty("plan_cache_mode", "force_generic_plan");
    AtomicReference<Future<Boolean>> distributed = new AtomicReference<>();
    Supplier<Future<SqlConnectOptions>> options =
        () ->
            distributed(vertx, planned, distributed)
                .map(citus -> citus || !genericPlans ? planned : generic);
    return PgBuilder.pool()
        .with(poolOptions(name, maxSize, queueSize, eventLoops))
        .connectingTo(options)
        .using(vertx)
        .build();
  }

  /** Connection options that keep prepared statements, with a statement timeout (0: none). */
  private static PgConnectOptions cached(String url, int statementTimeoutMillis) {
    PgConnectOptions options =
        PgConnectOptions.fromUri(url)
            .setCachePreparedStatements(true)
            .setPreparedStatementCacheMaxSize(256)
            // The client caches statements up to 2 KiB of text by default; the commit statement
            // (with its audit record) is longer, and re-parsing it on every batch cost a third of
            // the commit rate.
            .setPreparedStatementCacheSqlLimit(16 * 1024);
    options.addProperty("statement_timeout", Integer.toString(statementTimeoutMillis));
    return options;
  }

  private static PoolOptions poolOptions(String name, int maxSize, int queueSize, int eventLoops) {
    return new PoolOptions()
        .setShared(true)
        .setName(name)
        .setMaxSize(maxSize)
        .setMaxWaitQueueSize(queueSize)
        .setEventLoopSize(eventLoops);
  }

  /** Whether the database {@code client} reaches is Citus (has its extension). */
  public static Future<Boolean> distributed(SqlClient client) {
    return client.query(HAS_CITUS).execute().map(rows -> rows.iterator().next().getBoolean(0));
  }

  /** Whether the database has the Citus extension; asked once, again after a failure. */
  private static Future<Boolean> distributed(
      Vertx vertx, PgConnectOptions connect, AtomicReference<Future<Boolean>> known) {
    Future<Boolean> answer = known.get();
    if (answer != null && !answer.failed()) {
      return answer;
    }
    Future<Boolean> asked =
        PgConnection.connect(vertx, connect)
            .compose(conn -> distributed(conn).eventually(conn::close));
    known.set(asked);
    return asked;
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
