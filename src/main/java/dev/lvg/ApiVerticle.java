package dev.lvg;

import dev.lvg.admin.AdminRoutes;
import dev.lvg.admin.AdmissionRoutes;
import dev.lvg.admin.CallerRoutes;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.BearerTokens;
import dev.lvg.auth.Declaration;
import dev.lvg.auth.Routes;
import dev.lvg.batch.BatchRoutes;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.BranchRoutes;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.CatalogRoutes;
import dev.lvg.catalog.CatalogService;
import dev.lvg.catalog.Locations;
import dev.lvg.config.AdminListener;
import dev.lvg.config.Deadlines;
import dev.lvg.config.GatewayConfig;
import dev.lvg.console.Console;
import dev.lvg.feed.Feed;
import dev.lvg.feed.FeedHub;
import dev.lvg.feed.FeedRoutes;
import dev.lvg.feed.WebhookRoutes;
import dev.lvg.feed.WebhookTargets;
import dev.lvg.http.AccessLog;
import dev.lvg.http.ApiException;
import dev.lvg.http.ConnectionGuard;
import dev.lvg.http.ContractValidation;
import dev.lvg.http.ErrorResponder;
import dev.lvg.http.JsonBodies;
import dev.lvg.http.OutageLog;
import dev.lvg.http.Paging;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.metrics.HttpMetrics;
import dev.lvg.overload.Admission;
import dev.lvg.overload.AdmissionReport;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.overload.TenantRateLimit;
import dev.lvg.tag.TagRoutes;
import dev.lvg.tenancy.Right;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import dev.lvg.transaction.TransactionRoutes;
import dev.lvg.version.CommitPipeline;
import dev.lvg.version.VersionRepository;
import dev.lvg.version.VersionRoutes;
import dev.lvg.version.VersionService;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.PlatformHandler;
import io.vertx.sqlclient.Pool;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves the Lance Namespace REST API on one event loop; one instance is deployed per event loop
 * and all of them share the listening port, the gateway's Postgres pool, its commit pipeline and
 * its limiters.
 */
final class ApiVerticle extends VerticleBase {
  /** What every instance shares: configuration, pool, directories, limits and meters. */
  record Shared(
      GatewayConfig config,
      Pool pool,
      Pool reads,
      TenantDirectory tenants,
      BearerTokens bearerTokens,
      CatalogRepository catalog,
      BranchRepository branches,
      Locations locations,
      VersionRepository versions,
      CommitPipeline pipeline,
      ConcurrencyLimiter readAdmission,
      ConcurrencyLimiter writeAdmission,
      TenantRateLimit tenantRateLimit,
      GatewayMetrics metrics,
      HttpMetrics httpMetrics,
      AtomicBoolean draining,
      AtomicInteger openConnections,
      AtomicInteger busyGuards,
      OutageLog outages,
      ContractValidation apiContract,
      ContractValidation adminContract,
      Set<Declaration> served,
      Feed feed,
      AdmissionReport admission,
      Console console) {}

  private static final JsonBodies JSON_BODIES = new JsonBodies();
  private static final Handler<RoutingContext> MAY_READ = Authentication.requiring(Right.READ);
  private static final Handler<RoutingContext> MAY_WRITE = Authentication.requiring(Right.WRITE);

  private final Shared shared;
  private final int port;
  private final AtomicInteger boundPort;
  private final AtomicInteger boundAdminPort;
  private HttpServer server;
  private HttpServer adminServer;
  private ConnectionGuard guard;

  /**
   * {@code port} is the port to listen on (negative: a random port all instances share); the port
   * it got is set in {@code boundPort}, and the admin listener's (if it has one) in {@code
   * boundAdminPort}.
   */
  ApiVerticle(Shared shared, int port, AtomicInteger boundPort, AtomicInteger boundAdminPort) {
    this.shared = shared;
    this.port = port;
    this.boundPort = boundPort;
    this.boundAdminPort = boundAdminPort;
  }

  @Override
  public Future<?> start() {
    Deadlines deadlines = shared.config().deadlines();
    guard =
        new ConnectionGuard(
            deadlines.headTimeoutMillis(),
            deadlines.idleTimeoutMillis(),
            deadlines.bodyTimeoutMillis(),
            deadlines.maxConnections(),
            shared.openConnections(),
            shared.busyGuards());
    guard.start(vertx);
    HttpServerOptions options = ApiListeners.options(shared.config());
    Router router = router();
    Future<HttpServer> api =
        listen(options, router, port, shared.config().host(), !adminApart())
            .onSuccess(listening -> boundPort.set(listening.actualPort()));
    if (!adminApart()) {
      return api.onSuccess(listening -> server = listening);
    }
    AdminListener admin = shared.config().admin();
    // A negative port is a random one the verticles share, one per negative number: -1 is the
    // API's.
    int adminPort = admin.port() == 0 ? -2 : admin.port();
    Future<HttpServer> own = listen(options, router, adminPort, admin.host(), true);
    return Future.all(api, own)
        .onSuccess(
            both -> {
              server = api.result();
              adminServer = own.result();
              boundAdminPort.set(adminServer.actualPort());
            })
        .onFailure(
            failed -> {
              if (api.succeeded()) {
                api.result().close();
              }
              if (own.succeeded()) {
                own.result().close();
              }
            });
  }

  /** Whether the admin API has a listener of its own, so the API port refuses it. */
  private boolean adminApart() {
    return shared.config().adminApart();
  }

  /**
   * Serves {@code router} on {@code host}:{@code port}; with {@code admin} false the admin API is
   * refused there (it has a listener of its own).
   */
  private Future<HttpServer> listen(
      HttpServerOptions options, Router router, int port, String host, boolean admin) {
    return ApiListeners.listen(
        vertx,
        options,
        guard,
        router,
        admin,
        shared.draining(),
        shared.config().adminApiKey(),
        port,
        host);
  }

  private Router router() {
    GatewayConfig config = shared.config();
    Pool pool = shared.pool();
    BranchRepository branches = shared.branches();
    CatalogService catalog = new CatalogService(shared.catalog(), branches, shared.locations());
    VersionService versions = new VersionService(shared.versions(), shared.pipeline());
    Paging paging = new Paging(config.listDefaultLimit(), config.listMaxLimit());

    Authentication authentication =
        new Authentication(shared.tenants(), shared.bearerTokens(), config.adminApiKey());
    Router router = Router.router(vertx);
    if (config.accessLog()) {
      router
          .route()
          .handler(
              new AccessLog(
                  ctx -> {
                    Tenant tenant = Authentication.tenant(ctx);
                    return tenant == null ? null : tenant.name();
                  }));
    }
    if (shared.console() != null) {
      shared.console().mount(router);
    }
    AdminRoutes admin = new AdminRoutes(pool, config.adminApiKey(), shared.bearerTokens());
    Routes routes = new ChainedRoutes(router, authentication, admin::authorize);
    Pool reads = shared.reads();
    new VersionRoutes(pool, reads, versions, paging).mount(routes);
    new CatalogRoutes(pool, reads, catalog, paging).mount(routes);
    new BranchRoutes(pool, reads, branches, paging).mount(routes);
    new BatchRoutes(pool, catalog, versions).mount(routes);
    new TransactionRoutes(reads).mount(routes);
    new TagRoutes(pool, branches, shared.pipeline().manifests(), paging).mount(routes);
    admin.mount(routes);
    new AdmissionRoutes(pool, shared.admission()).mount(routes);
    new CallerRoutes().mount(routes);
    FeedHub feedHub =
        new FeedHub(
            vertx,
            reads,
            shared.feed(),
            shared.readAdmission(),
            shared.draining(),
            shared.tenants());
    new FeedRoutes(reads, shared.feed(), feedHub).mount(routes);
    boolean allowPrivate = config.feed().webhooks().allowPrivateTargets();
    new WebhookRoutes(pool, new WebhookTargets(vertx, allowPrivate)).mount(routes);
    ErrorResponder errors = new ErrorResponder(config.maxBodyBytes(), shared.outages());
    router.route().failureHandler(errors);
    router.errorHandler(404, errors);
    router.errorHandler(405, errors);
    router.errorHandler(413, errors);
    router.errorHandler(500, errors);
    return router;
  }

  /**
   * Mounts each declared operation behind the common chain: latency meter, admission (reads and
   * writes apart), body, then for the namespace API its authentication, the declared right and the
   * tenant quota, and for the admin API its own authorization. Version creates have their outcomes
   * counted.
   */
  private final class ChainedRoutes implements Routes {
    private final Router router;
    private final BodyHandler body;
    private final Authentication authentication;
    private final Handler<RoutingContext> adminAuthorization;

    ChainedRoutes(
        Router router, Authentication authentication, Handler<RoutingContext> adminAuthorization) {
      this.router = router;
      this.body = BodyHandler.create(false).setBodyLimit(shared.config().maxBodyBytes());
      this.authentication = authentication;
      this.adminAuthorization = adminAuthorization;
    }

    @Override
    public void serve(Declaration declaration, Handler<RoutingContext> operation) {
      String method = declaration.method();
      String path = declaration.routePath();
      Route route = router.route(HttpMethod.valueOf(method), path);
      shared.served().add(declaration);
      route.handler(shared.httpMetrics().timing(method, path));
      if (declaration.id().equals(VersionRoutes.CREATE)) {
        route.handler((PlatformHandler) ApiVerticle.this::countCreateOutcome);
      }
      Right right = declaration.right();
      if (right == Right.ADMIN) {
        route
            .handler(JSON_BODIES)
            .handler(body)
            .handler(adminAuthorization)
            .handler(shared.adminContract().check(declaration.id()))
            .handler(operation);
        return;
      }
      ConcurrencyLimiter limiter =
          right == Right.READ ? shared.readAdmission() : shared.writeAdmission();
      if (limiter != null) {
        route.handler(new Admission(limiter, authentication::requester));
      }
      route
          .handler(JSON_BODIES)
          .handler(body)
          .handler(authentication)
          .handler(right == Right.READ ? MAY_READ : MAY_WRITE);
      if (right == Right.READ) {
        route.handler(ErrorResponder::read);
      }
      if (shared.tenantRateLimit() != null) {
        route.handler(shared.tenantRateLimit());
      }
      ContractValidation contract =
          declaration.own() ? shared.adminContract() : shared.apiContract();
      route.handler(contract.check(declaration.id())).handler(operation);
    }
  }

  /** Counts how each {@code version/create} ended, sheds and router refusals included. */
  private void countCreateOutcome(RoutingContext ctx) {
    ctx.addEndHandler(
        ended -> {
          Boolean created = ctx.get(VersionRoutes.CREATED);
          if (!ctx.response().ended()) {
            return;
          }
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

  private static Future<Void> close(HttpServer server) {
    return server == null ? Future.succeededFuture() : server.close();
  }

  /**
   * Called once the gateway is draining (new requests get 503): waits up to the shutdown grace for
   * the requests in progress on every event loop to be answered, then closes the server and its
   * connections.
   */
  @Override
  public Future<?> stop() {
    long grace = TimeUnit.SECONDS.toMillis(shared.config().deadlines().shutdownGraceSeconds());
    return guard
        .idle(grace)
        .compose(
            idle -> {
              guard.stop();
              return Future.all(close(server), close(adminServer));
            });
  }
}
