package dev.lvg.db;

import io.vertx.core.Vertx;
import io.vertx.pgclient.PgBuilder;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;

/**
 * Builds the named Postgres pool one gateway shares between its verticles. It is created outside
 * any verticle, so its connections are spread over {@code eventLoops} event loops.
 */
public final class Database {
  private Database() {}

  public static Pool pool(
      Vertx vertx, String url, String name, int maxSize, int queueSize, int eventLoops) {
    PgConnectOptions connect =
        PgConnectOptions.fromUri(url)
            .setCachePreparedStatements(true)
            .setPreparedStatementCacheMaxSize(256);
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
