package dev.lvg;

import dev.lvg.config.GatewayConfig;
import dev.lvg.db.EmbeddedDatabase;
import dev.lvg.db.Migrations;
import dev.lvg.db.Pools;
import dev.lvg.tenancy.TenantDirectory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running gateway: its database (embedded or external), the API verticles (one per event loop
 * of its Vert.x instance) and the management verticle (on a Vert.x instance of its own). Starting
 * blocks the calling thread until the gateway serves or has failed; it is never called on an event
 * loop.
 */
public final class Gateway implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
  private static final long START_TIMEOUT_SECONDS = 120;

  private final EmbeddedDatabase embedded;
  private final Assembly assembly;

  private Gateway(EmbeddedDatabase embedded, Assembly assembly) {
    this.embedded = embedded;
    this.assembly = assembly;
  }

  /** Tenants and keys of this gateway's database, for administration and tests. */
  public TenantDirectory tenants() {
    return assembly.tenants();
  }

  /** The embedded database, or {@code null} when an external one is configured. */
  EmbeddedDatabase embeddedDatabase() {
    return embedded;
  }

  /** The Vert.x instance whose event loops serve the API, for tests. */
  Vertx apiVertx() {
    return assembly.apiVertx();
  }

  /** The port the API listens on (the configured one, or the one chosen for port 0). */
  public int apiPort() {
    return assembly.apiPort();
  }

  /** The port of the admin API's own listener, or the API port when it has none. */
  public int adminPort() {
    return assembly.adminPort();
  }

  /** The port the management endpoints listen on. */
  public int managementPort() {
    return assembly.managementPort();
  }

  public static Gateway start(GatewayConfig config) {
    return start(config, Clock.systemUTC());
  }

  /** Starts with {@code clock} telling the time vended credentials are judged by. */
  static Gateway start(GatewayConfig config, Clock clock) {
    Utf8Relaunch.logEncoding(LOG);
    List<Migrations.Migration> migrations = Migrations.load();
    EmbeddedDatabase embedded =
        config.embeddedDatabase() ? EmbeddedDatabase.start(config.dataDir()) : null;
    String url = embedded != null ? embedded.url() : config.dbUrl();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Vertx vertx = GatewayVertx.create(config, registry);
    Pools pools = Pools.open(vertx, url, config);
    Vertx managementVertx = GatewayVertx.management(registry);
    Pool healthPool = Pools.health(managementVertx, url, config);
    Gateway gateway =
        new Gateway(
            embedded,
            new Assembly(vertx, managementVertx, pools, healthPool, config, registry, clock));
    try {
      gateway
          .assembly
          .deploy(config, registry, migrations, url)
          .toCompletionStage()
          .toCompletableFuture()
          .get(START_TIMEOUT_SECONDS + config.dbStartTimeoutSeconds(), TimeUnit.SECONDS);
    } catch (Exception e) {
      gateway.close();
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(
          cause.getMessage() == null ? cause.toString() : cause.getMessage(), cause);
    }
    LOG.info(
        "serving the API on {}:{}, the admin API on {}:{} and management on {}:{} ({} event-loop"
            + " verticles, {} database)",
        config.host(),
        gateway.apiPort(),
        config.adminApart() ? config.admin().host() : config.host(),
        gateway.adminPort(),
        config.managementHost(),
        gateway.managementPort(),
        config.httpInstances(),
        embedded != null ? "embedded" : "external");
    String clearText = config.admin().clearTextWarning(config);
    if (clearText != null) {
      LOG.warn(clearText);
    }
    return gateway;
  }

  /** Stops the gateway in order (see {@link Assembly#close}), then an embedded database. */
  @Override
  public void close() {
    assembly.close();
    if (embedded != null) {
      embedded.close();
    }
    LOG.info("gateway stopped");
  }
}
