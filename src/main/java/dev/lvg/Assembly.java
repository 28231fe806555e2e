package dev.lvg;

import dev.lvg.auth.BearerTokens;
import dev.lvg.auth.Declaration;
import dev.lvg.config.GatewayConfig;
import dev.lvg.db.Database;
import dev.lvg.db.Migrations;
import dev.lvg.db.Pools;
import dev.lvg.http.ContractValidation;
import dev.lvg.http.OpenApi;
import dev.lvg.http.OutageLog;
import dev.lvg.management.ManagementVerticle;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.metrics.HttpMetrics;
import dev.lvg.operation.Right;
import dev.lvg.platform.Jobs;
import dev.lvg.platform.Limits;
import dev.lvg.platform.Meters;
import dev.lvg.platform.Module;
import dev.lvg.platform.Platform;
import dev.lvg.platform.Storage;
import dev.lvg.tenancy.CredentialEvents;
import dev.lvg.tenancy.TenantDirectory;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.CompositeFuture;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a running gateway is made of (its Vert.x instances, pools, storage, jobs and modules) and
 * the order it comes up and goes down in.
 */
final class Assembly implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

  private final Vertx vertx;
  private final Vertx managementVertx;
  private final Pools pools;
  private final Pool pool;
  private final Pool healthPool;
  private final TenantDirectory tenants;
  private final Storage storage;
  private final Jobs jobs;
  private final Clock clock;
  private final List<Module> modules;
  private final AtomicInteger apiPort = new AtomicInteger();
  private final AtomicInteger adminPort = new AtomicInteger();
  private final AtomicInteger managementPort = new AtomicInteger();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final int shutdownGraceSeconds;
  private volatile String apiDeployment;
  private volatile CredentialEvents credentialEvents;
  private final Set<Declaration> served = ConcurrentHashMap.newKeySet();

  Assembly(
      Vertx vertx,
      Vertx managementVertx,
      Pools pools,
      Pool healthPool,
      GatewayConfig config,
      PrometheusMeterRegistry registry,
      Clock clock) {
    this.vertx = vertx;
    this.managementVertx = managementVertx;
    this.pools = pools;
    this.pool = pools.writes();
    this.healthPool = healthPool;
    this.tenants = new TenantDirectory(pool);
    this.storage = Storage.open(vertx, config, registry, clock);
    this.jobs = new Jobs(vertx, registry);
    this.clock = clock;
    this.modules = Modules.of(config);
    this.shutdownGraceSeconds = config.deadlines().shutdownGraceSeconds();
  }

  /** Tenants and keys of this gateway's database, for administration and tests. */
  TenantDirectory tenants() {
    return tenants;
  }

  /** The Vert.x instance whose event loops serve the API, for tests. */
  Vertx apiVertx() {
    return vertx;
  }

  /** The port the API listens on (the configured one, or the one chosen for port 0). */
  int apiPort() {
    return apiPort.get();
  }

  /** The port of the admin API's own listener, or the API port when it has none. */
  int adminPort() {
    return adminPort.get() == 0 ? apiPort() : adminPort.get();
  }

  /** The port the management endpoints listen on. */
  int managementPort() {
    return managementPort.get();
  }

  /** Brings the gateway up: database, schema, modules, the API and management verticles. */
  Future<?> deploy(
      GatewayConfig config,
      PrometheusMeterRegistry registry,
      List<Migrations.Migration> migrations,
      String url) {
    Future<BearerTokens> bearerTokens =
        config.oauth2().enabled()
            ? BearerTokens.create(vertx, config.oauth2(), tenants)
            : Future.succeededFuture(null);
    return Database.awaitAnswer(vertx, pool, config.dbStartTimeoutSeconds())
        .compose(answered -> storage.manifests().checkWritable())
        .compose(writable -> Migrations.apply(pool, migrations))
        .compose(
            applied ->
                CredentialEvents.listen(vertx, url, tenants)
                    .onSuccess(this::checkCredentialEvents)
                    .map(applied))
        .onSuccess(
            applied -> LOG.info("database schema ready ({} migrations applied now)", applied))
        .compose(
            applied ->
                config.bootstrapTenant() == null
                    ? Future.succeededFuture()
                    : tenants
                        .ensureTenantWithKey(config.bootstrapTenant(), config.bootstrapApiKey())
                        .onSuccess(
                            tenant -> LOG.info("bootstrap tenant '{}' ready", tenant.name())))
        .compose(bootstrapped -> bearerTokens)
        .compose(
            tokens ->
                Database.distributed(pool)
                    .map(citus -> platform(config, registry, citus))
                    .compose(platform -> startModules(platform).map(platform))
                    .compose(
                        platform ->
                            Future.all(
                                    ContractValidation.spec(vertx, OpenApi.gatewayVersion()),
                                    ContractValidation.admin(vertx))
                                .compose(contracts -> deployApi(platform, tokens, contracts))))
        .compose(
            deployed -> {
              ManagementVerticle management =
                  new ManagementVerticle(
                      config.managementHost(),
                      config.managementPort(),
                      healthPool,
                      registry,
                      draining,
                      () ->
                          OpenApi.yaml(
                              served.stream()
                                  .filter(declaration -> declaration.right() != Right.ADMIN)
                                  .map(Declaration::id)
                                  .toList(),
                              OpenApi.gatewayVersion()));
              return managementVertx
                  .deployVerticle(management)
                  .onSuccess(id -> managementPort.set(management.actualPort()));
            });
  }

  private Platform platform(GatewayConfig config, PrometheusMeterRegistry registry, boolean citus) {
    OutageLog outages = OutageLog.metered(registry);
    jobs.tick("outage-tick", OutageLog.TICK_MILLIS, () -> outages.tick(System.currentTimeMillis()));
    return new Platform(
        vertx,
        config,
        pools,
        new Meters(registry, new GatewayMetrics(registry), new HttpMetrics(registry), outages),
        Limits.of(vertx, config, registry),
        tenants,
        storage,
        clock,
        jobs,
        draining,
        citus);
  }

  /** Starts the modules one after another, in the order of the list. */
  private Future<?> startModules(Platform platform) {
    Future<?> started = Future.succeededFuture();
    for (Module module : modules) {
      started = started.compose(previous -> module.start(platform));
    }
    return started.onSuccess(
        all ->
            LOG.info(
                "modules started: {}",
                modules.stream().map(Module::name).collect(Collectors.joining(", "))));
  }

  /** One API verticle per event loop, all on one port; port 0 picks a free port they share. */
  private Future<?> deployApi(Platform platform, BearerTokens tokens, CompositeFuture contracts) {
    ApiVerticle.Front front =
        new ApiVerticle.Front(
            contracts.resultAt(0),
            contracts.resultAt(1),
            tokens,
            served,
            new AtomicInteger(),
            new AtomicInteger(),
            apiPort,
            adminPort,
            new ConcurrentHashMap<>());
    GatewayConfig config = platform.config();
    if (config.tlsSettings().on()) {
      long every = config.tlsSettings().reloadSeconds() * 1000L;
      TlsReload reload = new TlsReload(vertx, config, front.servers());
      platform.jobs().every("tls-reload", every, every, reload::check);
    }
    int port = config.port() == 0 ? -1 : config.port();
    return vertx
        .deployVerticle(
            () -> new ApiVerticle(platform, modules, front, port),
            new DeploymentOptions()
                .setInstances(config.httpInstances())
                .setThreadingModel(ThreadingModel.EVENT_LOOP))
        .onSuccess(id -> apiDeployment = id);
  }

  /**
   * Stops in order, so that nothing in progress fails: readiness turns 503 and requests that arrive
   * get 503 code 17; the API servers stop accepting and the requests in progress get the shutdown
   * grace to finish; then the jobs and the modules stop, and only then do the pools close.
   */
  @Override
  public void close() {
    draining.set(true);
    String api = apiDeployment;
    if (api != null) {
      LOG.info("draining: requests in progress have {} s to finish", shutdownGraceSeconds);
      try {
        vertx
            .undeploy(api)
            .toCompletionStage()
            .toCompletableFuture()
            .get(shutdownGraceSeconds + 10L, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("the API did not drain cleanly: {}", e.toString());
      }
    }
    stopModules();
    CredentialEvents events = credentialEvents;
    if (events != null) {
      events
          .close()
          .toCompletionStage()
          .toCompletableFuture()
          .completeOnTimeout(null, 10, TimeUnit.SECONDS)
          .exceptionally(e -> null)
          .join();
    }
    for (Vertx instance : List.of(vertx, managementVertx)) {
      try {
        instance.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("Vert.x did not close cleanly: {}", e.toString());
      }
    }
    storage.close();
  }

  private void checkCredentialEvents(CredentialEvents listening) {
    credentialEvents = listening;
    jobs.tick("credential-check", CredentialEvents.CHECK_MILLIS, listening::check);
  }

  /** Stops the jobs, then the modules in the reverse order of the list. */
  private void stopModules() {
    Future<?> stopped = jobs.stop(TimeUnit.SECONDS.toMillis(10));
    List<Module> reversed = new ArrayList<>(modules);
    Collections.reverse(reversed);
    for (Module module : reversed) {
      stopped = stopped.eventually(() -> module.stop());
    }
    try {
      stopped.toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("the modules did not stop cleanly: {}", e.toString());
    }
  }
}
