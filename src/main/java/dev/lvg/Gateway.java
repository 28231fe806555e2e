package dev.lvg;

import dev.lvg.auth.BearerTokens;
import dev.lvg.auth.Declaration;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.Locations;
import dev.lvg.catalog.NamespaceRepository;
import dev.lvg.config.GatewayConfig;
import dev.lvg.console.Console;
import dev.lvg.db.Database;
import dev.lvg.db.EmbeddedDatabase;
import dev.lvg.db.Migrations;
import dev.lvg.db.Pools;
import dev.lvg.feed.Feed;
import dev.lvg.http.ContractValidation;
import dev.lvg.http.OpenApi;
import dev.lvg.http.OutageLog;
import dev.lvg.management.ManagementVerticle;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.metrics.HttpMetrics;
import dev.lvg.overload.AdmissionReport;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.tenancy.CredentialEvents;
import dev.lvg.tenancy.Right;
import dev.lvg.tenancy.TenantDirectory;
import dev.lvg.version.CommitPipeline;
import dev.lvg.version.VersionRepository;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.CompositeFuture;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
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
  private final Vertx vertx;
  private final Vertx managementVertx;
  private final Pool pool;
  private final Pool reads;
  private final Pool healthPool;
  private final TenantDirectory tenants;
  private final GatewayStorage storage;
  private final AtomicInteger apiPort = new AtomicInteger();
  private final AtomicInteger adminPort = new AtomicInteger();
  private final AtomicInteger managementPort = new AtomicInteger();
  private final AtomicBoolean draining = new AtomicBoolean();
  private final int shutdownGraceSeconds;
  private volatile String apiDeployment;
  private volatile CredentialEvents credentialEvents;
  private final Set<Declaration> served = ConcurrentHashMap.newKeySet();

  private Gateway(
      EmbeddedDatabase embedded,
      Vertx vertx,
      Vertx managementVertx,
      Pools pools,
      Pool healthPool,
      GatewayConfig config,
      PrometheusMeterRegistry registry,
      Clock clock) {
    this.embedded = embedded;
    this.vertx = vertx;
    this.managementVertx = managementVertx;
    this.pool = pools.writes();
    this.reads = pools.reads();
    this.healthPool = healthPool;
    this.tenants = new TenantDirectory(pool);
    this.storage = GatewayStorage.open(vertx, pool, config, registry, clock);
    this.shutdownGraceSeconds = config.deadlines().shutdownGraceSeconds();
  }

  /** Tenants and keys of this gateway's database, for administration and tests. */
  public TenantDirectory tenants() {
    return tenants;
  }

  /** The embedded database, or {@code null} when an external one is configured. */
  EmbeddedDatabase embeddedDatabase() {
    return embedded;
  }

  /** The Vert.x instance whose event loops serve the API, for tests. */
  Vertx apiVertx() {
    return vertx;
  }

  /** The port the API listens on (the configured one, or the one chosen for port 0). */
  public int apiPort() {
    return apiPort.get();
  }

  /** The port of the admin API's own listener, or the API port when it has none. */
  public int adminPort() {
    return adminPort.get() == 0 ? apiPort() : adminPort.get();
  }

  /** The port the management endpoints listen on. */
  public int managementPort() {
    return managementPort.get();
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
        new Gateway(embedded, vertx, managementVertx, pools, healthPool, config, registry, clock);
    try {
      gateway
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

  private Future<?> deploy(
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
                    .onSuccess(listening -> credentialEvents = listening)
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
                    .compose(
                        citus ->
                            Future.all(
                                    ContractValidation.spec(vertx, OpenApi.gatewayVersion()),
                                    ContractValidation.admin(vertx),
                                    Console.load(vertx, config.console()))
                                .compose(
                                    loaded -> deployApi(config, registry, tokens, citus, loaded))))
        .compose(deployed -> vertx.deployVerticle(storage.drops()))
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

  /** One API verticle per event loop, all on one port; port 0 picks a free port they share. */
  private Future<?> deployApi(
      GatewayConfig config,
      PrometheusMeterRegistry registry,
      BearerTokens tokens,
      boolean distributed,
      CompositeFuture loaded) {
    CatalogRepository catalog = new CatalogRepository(new NamespaceRepository());
    BranchRepository branches = new BranchRepository(catalog);
    VersionRepository versions = new VersionRepository(catalog, branches, distributed);
    GatewayMetrics metrics = new GatewayMetrics(registry);
    OutageLog outages = OutageLog.metered(vertx, registry);
    Feed feed = Feed.start(vertx, pool, config.feed(), registry, draining);
    CommitPipeline pipeline =
        new CommitPipeline(
            vertx,
            pool,
            versions,
            storage.manifests(),
            config.commitBatchesInFlight(),
            config.commitBatchSize(),
            distributed,
            metrics);
    ConcurrencyLimiter readAdmission =
        Limits.admission(vertx, Limits.READS, config.admission(), registry);
    ConcurrencyLimiter writeAdmission =
        Limits.admission(vertx, "writes", config.admission(), registry);
    ApiVerticle.Shared shared =
        new ApiVerticle.Shared(
            config,
            pool,
            reads,
            tenants,
            tokens,
            catalog,
            branches,
            new Locations(config.storageRoot(), config.s3(), storage.vendor()),
            versions,
            pipeline,
            readAdmission,
            writeAdmission,
            Limits.tenantQuotas(config.tenantQuotas()),
            metrics,
            new HttpMetrics(registry),
            draining,
            new AtomicInteger(),
            new AtomicInteger(),
            outages,
            loaded.resultAt(0),
            loaded.resultAt(1),
            served,
            feed,
            new AdmissionReport(List.of(readAdmission, writeAdmission), registry),
            loaded.resultAt(2));
    int port = config.port() == 0 ? -1 : config.port();
    return vertx
        .deployVerticle(
            () -> new ApiVerticle(shared, port, apiPort, adminPort),
            new DeploymentOptions()
                .setInstances(config.httpInstances())
                .setThreadingModel(ThreadingModel.EVENT_LOOP))
        .onSuccess(id -> apiDeployment = id);
  }

  /**
   * Stops in order, so that nothing in progress fails: readiness turns 503 and requests that arrive
   * get 503 code 17; the API servers stop accepting and the requests in progress get the shutdown
   * grace to finish; only then do the pools close and an embedded database stop.
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
    if (embedded != null) {
      embedded.close();
    }
    LOG.info("gateway stopped");
  }
}
