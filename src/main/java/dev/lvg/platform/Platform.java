package dev.lvg.platform;

import dev.lvg.config.GatewayConfig;
import dev.lvg.db.Pools;
import dev.lvg.http.Paging;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What every module starts from: the Vert.x instance whose event loops serve the API, the
 * configuration, the database pools (writes and reads apart), the meters, the admission limits, the
 * tenants and their keys, the table data's storage, the clock vended credentials are judged by, the
 * background jobs, whether the gateway is draining, and whether the database is distributed
 * (Citus).
 */
public record Platform(
    Vertx vertx,
    GatewayConfig config,
    Pools pools,
    Meters meters,
    Limits limits,
    TenantDirectory tenants,
    Storage storage,
    Clock clock,
    Jobs jobs,
    AtomicBoolean draining,
    boolean distributed) {
  /** How lists page: the configured default and largest page. */
  public Paging paging() {
    return new Paging(config.listDefaultLimit(), config.listMaxLimit());
  }
}
