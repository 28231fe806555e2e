package dev.lvg;

import dev.lvg.auth.BearerTokens;
import dev.lvg.config.GatewayConfig;
import dev.lvg.db.Database;
import dev.lvg.db.EmbeddedDatabase;
import dev.lvg.db.Migrations;
import dev.lvg.http.ApiVerticle;
import dev.lvg.management.ManagementVerticle;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.overload.InFlightLimit;
import dev.lvg.overload.TenantRateLimit;
import dev.lvg.storage.LocalFileStore;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.S3Store;
import java.net.URI;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3AsyncClient;
import software.amazon.awssdk.services.s3.S3AsyncClientBuilder;
import dev.lvg.version.VersionRepository;
import dev.lvg.tenancy.TenantDirectory;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.sqlclient.Pool;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running gateway: its database (embedded or external), its Vert.x instance, the API verticles
 * (one per event loop) and the management verticle. Starting blocks the calling thread until the
 * gateway serves or has failed; it is never called on an event loop.
 */
public final class Gateway implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);
  private static final long START_TIMEOUT_SECONDS = 120;

  private final EmbeddedDatabase embedded;
  private final Vertx vertx;
  private final Pool pool;
  private final Pool healthPool;
  private final TenantDirectory tenants;
  private final S3AsyncClient s3;
  private final Manifests manifests;

  private Gateway(EmbeddedDatabase embedded, Vertx vertx, Pool pool, Pool healthPool, GatewayConfig config) {
    this.embedded = embedded;
    this.vertx = vertx;
    this.pool = pool;
    this.healthPool = healthPool;
    this.tenants = new TenantDirectory(pool);
    this.s3 = config.s3Bucket() == null ? null : s3Client(config);
    this.manifests = new Manifests(new LocalFileStore(vertx),
        s3 == null ? null : new S3Store(vertx, s3, config.s3Bucket()), config.finalizeManifests());
  }

  /** Tenants and keys of this gateway's database, for administration and tests. */
  public TenantDirectory tenants() {
    return tenants;
  }

  /** The embedded database, or {@code null} when an external one is configured. */
  EmbeddedDatabase embeddedDatabase() {
    return embedded;
  }

  public static Gateway start(GatewayConfig config) {
    List<Migrations.Migration> migrations = Migrations.load();
    EmbeddedDatabase embedded = config.embeddedDatabase() ? EmbeddedDatabase.start(config.dataDir()) : null;
    String url = embedded != null ? embedded.url() : config.dbUrl();
    PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    Vertx vertx = Vertx.builder()
        .with(new VertxOptions().setMetricsOptions(new MicrometerMetricsOptions()
            .setEnabled(true)
            .setJvmMetricsEnabled(true)
            .setLabels(EnumSet.of(Label.HTTP_METHOD, Label.HTTP_CODE, Label.HTTP_ROUTE, Label.POOL_TYPE,
                Label.POOL_NAME))))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
    Pool pool = Database.pool(vertx, url, "lvg", config.dbPoolSize(), config.dbQueueSize(), config.httpInstances());
    // Readiness asks whether PostgreSQL answers, on a connection of its own: a busy API pool is
    // load to shed, not a reason to take the gateway out of service.
    Pool healthPool = Database.pool(vertx, url, "lvg-health", 1, 4, 1);
    Gateway gateway = new Gateway(embedded, vertx, pool, healthPool, config);
    try {
      gateway.deploy(config, registry, migrations).toCompletionStage().toCompletableFuture()
          .get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
    } catch (Exception e) {
      gateway.close();
      Throwable cause = e instanceof java.util.concurrent.ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(cause.getMessage() == null ? cause.toString() : cause.getMessage(), cause);
    }
    LOG.info("serving the API on {}:{} and management on {}:{} ({} event-loop verticles, {} database)",
        config.host(), config.port(), config.host(), config.managementPort(), config.httpInstances(),
        embedded != null ? "embedded" : "external");
    return gateway;
  }

  private Future<?> deploy(GatewayConfig config, PrometheusMeterRegistry registry, List<Migrations.Migration> migrations) {
    GatewayMetrics metrics = new GatewayMetrics(registry);
    InFlightLimit inFlight = new InFlightLimit(config.maxInFlight());
    TenantRateLimit tenantRateLimit = new TenantRateLimit(config.tenantRate(), config.tenantBurst(), System::nanoTime);
    Future<BearerTokens> bearerTokens = config.oauth2().enabled()
        ? BearerTokens.create(vertx, config.oauth2(), tenants) : Future.succeededFuture(null);
    return Migrations.apply(pool, migrations)
        .onSuccess(applied -> LOG.info("database schema ready ({} migrations applied now)", applied))
        .compose(applied -> VersionRepository.rollBackExpiredClaims(pool, manifests))
        .onSuccess(rolledBack -> {
          if (rolledBack > 0) {
            LOG.warn("rolled back {} version claims left pending by an earlier run", rolledBack);
          }
        })
        .compose(applied -> config.bootstrapTenant() == null
            ? Future.succeededFuture()
            : tenants.ensureTenantWithKey(config.bootstrapTenant(), config.bootstrapApiKey())
                .onSuccess(tenant -> LOG.info("bootstrap tenant '{}' ready", tenant.name())))
        .compose(bootstrapped -> bearerTokens)
        .compose(tokens -> vertx.deployVerticle(
            () -> new ApiVerticle(config, pool, tenants, tokens, manifests, inFlight, tenantRateLimit, metrics),
            new DeploymentOptions().setInstances(config.httpInstances()).setThreadingModel(ThreadingModel.EVENT_LOOP)))
        .compose(deployed -> vertx.deployVerticle(
            new ManagementVerticle(config.host(), config.managementPort(), healthPool, registry)));
  }

  /** The gateway's S3 client, when the storage root is an {@code s3://} bucket. */
  private static S3AsyncClient s3Client(GatewayConfig config) {
    GatewayConfig.S3Settings s3 = config.s3();
    S3AsyncClientBuilder builder = S3AsyncClient.builder()
        .region(Region.of(s3.region()))
        .forcePathStyle(s3.pathStyle())
        // Checksum trailers only where S3 requires them: many S3-compatible stores reject them.
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED);
    if (s3.endpoint() != null) {
      builder.endpointOverride(URI.create(s3.endpoint()));
    }
    if (s3.accessKeyId() != null) {
      builder.credentialsProvider(StaticCredentialsProvider.create(
          AwsBasicCredentials.create(s3.accessKeyId(), s3.secretAccessKey())));
    }
    return builder.build();
  }

  /** Stops serving, lets requests in progress finish, closes the pool and stops an embedded database. */
  @Override
  public void close() {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(60, TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("Vert.x did not close cleanly: {}", e.toString());
    }
    if (s3 != null) {
      s3.close();
    }
    if (embedded != null) {
      embedded.close();
    }
    LOG.info("gateway stopped");
  }
}
