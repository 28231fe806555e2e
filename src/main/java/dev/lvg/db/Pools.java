package dev.lvg.db;

import dev.lvg.config.GatewayConfig;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;

/**
 * The API's connections, in two pools: one for writes (commits, catalog changes, background work)
 * under {@code LVG_DB_STATEMENT_TIMEOUT_MS}, one for reads (lists, describes, the change feed)
 * under the shorter {@code LVG_DB_READ_TIMEOUT_MS}. However many reads run or wait, they hold only
 * their own pool's connections: a commit always finds one of its own.
 */
public record Pools(Pool writes, Pool reads) {
  public static Pools open(Vertx vertx, String url, GatewayConfig config) {
    Pool writes =
        Database.keyedPool(
            vertx,
            url,
            "lvg",
            config.dbPoolSize(),
            config.dbQueueSize(),
            config.httpInstances(),
            config.deadlines().statementTimeoutMillis(),
            true);
    // Reads are planned with their parameters' values (PostgreSQL's own choice, plan_cache_mode
    // auto): a change-feed page chooses between its window of positions and the index of keys by
    // how many rows each would read, which a generic plan cannot know.
    Pool reads =
        Database.keyedPool(
            vertx,
            url,
            "lvg-reads",
            config.dbReadPoolSize(),
            config.dbQueueSize(),
            config.httpInstances(),
            config.deadlines().readTimeoutMillis(),
            false);
    return new Pools(writes, reads);
  }

  /**
   * The readiness check's one connection, on {@code vertx} (the management port's own): whether
   * PostgreSQL answers is asked apart from the API's pools, since a busy API pool is load to shed,
   * not a reason to take the gateway out of service.
   */
  public static Pool health(Vertx vertx, String url, GatewayConfig config) {
    return Database.pool(
        vertx, url, "lvg-health", 1, 4, 1, config.deadlines().statementTimeoutMillis());
  }
}
