package dev.lvg;

import dev.lvg.auth.AdminAuthorization;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.BearerTokens;
import dev.lvg.auth.Declaration;
import dev.lvg.config.AdminListener;
import dev.lvg.config.Deadlines;
import dev.lvg.config.GatewayConfig;
import dev.lvg.http.AccessLog;
import dev.lvg.http.ConnectionGuard;
import dev.lvg.http.ContractValidation;
import dev.lvg.http.ErrorResponder;
import dev.lvg.platform.Module;
import dev.lvg.platform.Platform;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.Router;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Serves the Lance Namespace REST API on one event loop; one instance is deployed per event loop
 * and all of them share the listening port, the platform (pools, limits, meters) and the modules,
 * each of which serves its operations on this instance's router.
 */
final class ApiVerticle extends VerticleBase {
  /**
   * What the chain in front of every operation shares across instances: the two contracts requests
   * are checked against, the bearer tokens (null without OAuth2), the declarations served (for the
   * served OpenAPI document), the connection counts, where the listeners' bound ports are told, and
   * every listening server, true for an admin listener (whose certificates are reloaded when their
   * files change).
   */
  record Front(
      ContractValidation apiContract,
      ContractValidation adminContract,
      BearerTokens bearerTokens,
      Set<Declaration> served,
      AtomicInteger openConnections,
      AtomicInteger busyGuards,
      AtomicInteger boundPort,
      AtomicInteger boundAdminPort,
      Map<HttpServer, Boolean> servers) {}

  private final Platform platform;
  private final List<Module> modules;
  private final Front front;
  private final int port;
  private HttpServer server;
  private HttpServer adminServer;
  private ConnectionGuard guard;

  /**
   * {@code port} is the port to listen on (negative: a random port all instances share); the port
   * it got is set in the front's {@code boundPort}, and the admin listener's (if it has one) in its
   * {@code boundAdminPort}.
   */
  ApiVerticle(Platform platform, List<Module> modules, Front front, int port) {
    this.platform = platform;
    this.modules = modules;
    this.front = front;
    this.port = port;
  }

  @Override
  public Future<?> start() {
    GatewayConfig config = platform.config();
    Deadlines deadlines = config.deadlines();
    guard =
        new ConnectionGuard(
            new ConnectionGuard.Limits(
                deadlines.headTimeoutMillis(),
                deadlines.idleTimeoutMillis(),
                deadlines.bodyTimeoutMillis(),
                deadlines.maxConnections()),
            front.openConnections(),
            front.busyGuards());
    guard.start(vertx);
    HttpServerOptions options = ApiListeners.options(config);
    Router router = router();
    Future<HttpServer> api =
        listen(options, router, port, config.host(), !config.adminApart())
            .onSuccess(listening -> front.boundPort().set(listening.actualPort()));
    if (!config.adminApart()) {
      return api.onSuccess(
          listening -> {
            server = listening;
            front.servers().put(listening, false);
          });
    }
    AdminListener admin = config.admin();
    // A negative port is a random one the verticles share, one per negative number: -1 is the
    // API's.
    int adminPort = admin.port() == 0 ? -2 : admin.port();
    Future<HttpServer> own =
        listen(ApiListeners.options(config, true), router, adminPort, admin.host(), true);
    return Future.all(api, own)
        .onSuccess(
            both -> {
              server = api.result();
              adminServer = own.result();
              front.servers().put(server, false);
              front.servers().put(adminServer, true);
              front.boundAdminPort().set(adminServer.actualPort());
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
        platform.draining(),
        platform.config().adminApiKey(),
        port,
        host);
  }

  private Router router() {
    GatewayConfig config = platform.config();
    Authentication authentication =
        new Authentication(platform.tenants(), front.bearerTokens(), config.adminApiKey());
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
    ChainedRoutes routes =
        new ChainedRoutes(
            router,
            platform,
            front,
            authentication,
            new AdminAuthorization(config.adminApiKey(), front.bearerTokens()));
    for (Module module : modules) {
      module.routes(routes);
    }
    ErrorResponder errors = new ErrorResponder(config.maxBodyBytes(), platform.meters().outages());
    router.route().failureHandler(errors);
    router.errorHandler(404, errors);
    router.errorHandler(405, errors);
    router.errorHandler(413, errors);
    router.errorHandler(500, errors);
    return router;
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
    long grace = TimeUnit.SECONDS.toMillis(platform.config().deadlines().shutdownGraceSeconds());
    return guard
        .idle(grace)
        .compose(
            idle -> {
              guard.stop();
              if (server != null) {
                front.servers().remove(server);
              }
              if (adminServer != null) {
                front.servers().remove(adminServer);
              }
              return Future.all(close(server), close(adminServer));
            });
  }
}
