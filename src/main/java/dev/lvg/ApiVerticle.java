package dev.lvg;

import dev.lvg.auth.Authentication;
import dev.lvg.auth.BearerTokens;
import dev.lvg.batch.BatchRoutes;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.BranchRoutes;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.CatalogRoutes;
import dev.lvg.catalog.CatalogService;
import dev.lvg.catalog.Locations;
import dev.lvg.catalog.NamespaceRepository;
import dev.lvg.config.GatewayConfig;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorResponder;
import dev.lvg.http.JsonBodies;
import dev.lvg.http.Paging;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.overload.InFlightLimit;
import dev.lvg.overload.TenantRateLimit;
import dev.lvg.storage.Manifests;
import dev.lvg.tenancy.TenantDirectory;
import dev.lvg.version.VersionRepository;
import dev.lvg.version.VersionRoutes;
import dev.lvg.version.VersionService;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.sqlclient.Pool;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves the Lance Namespace REST API on one event loop; one instance is deployed per event loop
 * and all of them share the listening port and the gateway's Postgres pool. Each instance has its
 * own services, so its commit queue batches the requests of its loop.
 */
final class ApiVerticle extends VerticleBase {
  /** What every instance shares: configuration, pool, directories, limits and meters. */
  record Shared(
      GatewayConfig config,
      Pool pool,
      TenantDirectory tenants,
      BearerTokens bearerTokens,
      Manifests manifests,
      Locations locations,
      InFlightLimit inFlight,
      TenantRateLimit tenantRateLimit,
      GatewayMetrics metrics) {}

  private final Shared shared;
  private final int port;
  private final AtomicInteger boundPort;
  private HttpServer server;

  /**
   * {@code port} is the port to listen on (negative: a random port all instances share); the port
   * it got is set in {@code boundPort}.
   */
  ApiVerticle(Shared shared, int port, AtomicInteger boundPort) {
    this.shared = shared;
    this.port = port;
    this.boundPort = boundPort;
  }

  @Override
  public Future<?> start() {
    HttpServerOptions options =
        new HttpServerOptions().setCompressionSupported(true).setMaxInitialLineLength(16 * 1024);
    return vertx
        .createHttpServer(options)
        .requestHandler(router())
        .listen(port, shared.config().host())
        .onSuccess(
            listening -> {
              server = listening;
              boundPort.set(listening.actualPort());
            });
  }

  private Router router() {
    GatewayConfig config = shared.config();
    Pool pool = shared.pool();
    CatalogRepository catalogRepository = new CatalogRepository(new NamespaceRepository());
    BranchRepository branches = new BranchRepository(catalogRepository);
    CatalogService catalog = new CatalogService(catalogRepository, branches, shared.locations());
    VersionService versions =
        VersionService.forEventLoop(
            pool,
            new VersionRepository(catalogRepository, branches),
            shared.manifests(),
            config.commitBatchesInFlight(),
            config.commitBatchSize());
    Paging paging = new Paging(config.listDefaultLimit(), config.listMaxLimit());

    Router router = Router.router(vertx);
    router.post(VersionRoutes.CREATE).handler(this::countCreateOutcome);
    router.route().handler(shared.inFlight());
    router.route().handler(new JsonBodies());
    router.route().handler(BodyHandler.create(false).setBodyLimit(config.maxBodyBytes()));
    router.route("/v1/*").handler(new Authentication(shared.tenants(), shared.bearerTokens()));
    if (config.tenantRate() > 0) {
      router.route("/v1/*").handler(shared.tenantRateLimit());
    }
    new CatalogRoutes(pool, catalog, paging).mount(router);
    new BranchRoutes(pool, branches, paging).mount(router);
    new VersionRoutes(pool, versions, paging).mount(router);
    new BatchRoutes(pool, catalog, versions).mount(router);
    ErrorResponder errors = new ErrorResponder(config.maxBodyBytes());
    router.route().failureHandler(errors);
    router.errorHandler(404, errors);
    router.errorHandler(405, errors);
    router.errorHandler(413, errors);
    router.errorHandler(500, errors);
    return router;
  }

  /** Counts how each {@code version/create} ended, sheds and router refusals included. */
  private void countCreateOutcome(RoutingContext ctx) {
    ctx.addEndHandler(
        ended -> {
          Boolean created = ctx.get(VersionRoutes.CREATED);
          if (created != null) {
            shared.metrics().versionCreated(created);
          } else if (ctx.failure() != null) {
            shared.metrics().versionCreateFailed(ctx.failure());
          } else {
            shared
                .metrics()
                .versionCreateFailed(ApiException.invalidInput("refused by the router"));
          }
        });
    ctx.next();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.shutdown();
  }
}
