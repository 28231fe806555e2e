package dev.lvg.http;

import dev.lvg.auth.BearerTokens;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.CatalogRoutes;
import dev.lvg.catalog.Locations;
import dev.lvg.config.GatewayConfig;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.overload.InFlightLimit;
import dev.lvg.overload.TenantRateLimit;
import dev.lvg.storage.Manifests;
import dev.lvg.tenancy.TenantDirectory;
import dev.lvg.version.BatchRoutes;
import dev.lvg.version.BranchRepository;
import dev.lvg.version.VersionRepository;
import dev.lvg.version.VersionRoutes;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Pool;

/**
 * Serves the Lance Namespace REST API on one event loop; one instance is deployed per event loop
 * and all of them share the listening port and the gateway's Postgres pool.
 */
public final class ApiVerticle extends VerticleBase {
  private final GatewayConfig config;
  private final Pool pool;
  private final TenantDirectory tenants;
  private final BearerTokens bearerTokens;
  private final Manifests manifests;
  private final InFlightLimit inFlight;
  private final TenantRateLimit tenantRateLimit;
  private final GatewayMetrics metrics;
  private HttpServer server;

  public ApiVerticle(GatewayConfig config, Pool pool, TenantDirectory tenants, BearerTokens bearerTokens,
      Manifests manifests, InFlightLimit inFlight, TenantRateLimit tenantRateLimit, GatewayMetrics metrics) {
    this.config = config;
    this.pool = pool;
    this.tenants = tenants;
    this.bearerTokens = bearerTokens;
    this.manifests = manifests;
    this.inFlight = inFlight;
    this.tenantRateLimit = tenantRateLimit;
    this.metrics = metrics;
  }

  @Override
  public Future<?> start() {
    CatalogRepository catalog = new CatalogRepository();
    BranchRepository branches = new BranchRepository(catalog);
    Paging paging = new Paging(config.listDefaultLimit(), config.listMaxLimit());

    Router router = Router.router(vertx);
    ErrorResponder errors = new ErrorResponder(config.maxBodyBytes());
    router.route().handler(inFlight);
    router.route().handler(new JsonBodies());
    router.route().handler(BodyHandler.create(false).setBodyLimit(config.maxBodyBytes()));
    router.route("/v1/*").handler(new Authentication(tenants, bearerTokens));
    if (config.tenantRate() > 0) {
      router.route("/v1/*").handler(tenantRateLimit);
    }
    CatalogRoutes catalogRoutes = new CatalogRoutes(pool, catalog, branches, new Locations(config), paging);
    VersionRoutes versionRoutes = new VersionRoutes(pool, new VersionRepository(catalog, branches, manifests, vertx), branches, paging,
        metrics);
    catalogRoutes.mount(router);
    versionRoutes.mount(router);
    new BatchRoutes(pool, catalogRoutes, versionRoutes).mount(router);
    router.route().failureHandler(errors);
    router.errorHandler(404, errors);
    router.errorHandler(405, errors);
    router.errorHandler(413, errors);
    router.errorHandler(500, errors);

    HttpServerOptions options = new HttpServerOptions()
        .setCompressionSupported(true)
        .setMaxInitialLineLength(16 * 1024);
    return vertx.createHttpServer(options)
        .requestHandler(router)
        .listen(config.port(), config.host())
        .onSuccess(listening -> server = listening);
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.shutdown();
  }
}
