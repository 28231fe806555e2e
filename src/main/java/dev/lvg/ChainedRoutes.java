package dev.lvg;

import dev.lvg.auth.Authentication;
import dev.lvg.auth.Declaration;
import dev.lvg.auth.ObjectAccess;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.ContractValidation;
import dev.lvg.http.ErrorResponder;
import dev.lvg.http.JsonBodies;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.operation.Right;
import dev.lvg.overload.Admission;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.platform.Platform;
import dev.lvg.version.VersionRoutes;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import io.vertx.ext.web.handler.PlatformHandler;

/**
 * Mounts each declared operation behind the common chain: latency meter, admission (reads and
 * writes apart), body, then for the namespace API its authentication, the declared right on the
 * object the path names ({@link ObjectAccess}) and the tenant quota, and for the admin API its own
 * authorization; then the check against the operation's contract. Version creates have their
 * outcomes counted.
 */
final class ChainedRoutes implements Routes {
  private static final JsonBodies JSON_BODIES = new JsonBodies();

  private final Router router;
  private final Platform platform;
  private final ApiVerticle.Front front;
  private final BodyHandler body;
  private final Authentication authentication;
  private final Handler<RoutingContext> adminAuthorization;

  ChainedRoutes(
      Router router,
      Platform platform,
      ApiVerticle.Front front,
      Authentication authentication,
      Handler<RoutingContext> adminAuthorization) {
    this.router = router;
    this.platform = platform;
    this.front = front;
    this.body = BodyHandler.create(false).setBodyLimit(platform.config().maxBodyBytes());
    this.authentication = authentication;
    this.adminAuthorization = adminAuthorization;
  }

  @Override
  public void serve(Declaration declaration, Handler<RoutingContext> operation) {
    String method = declaration.method();
    String path = declaration.routePath();
    Route route = router.route(HttpMethod.valueOf(method), path);
    front.served().add(declaration);
    route.handler(platform.meters().http().timing(method, path));
    if (declaration.entry().commitPath()) {
      GatewayMetrics metrics = platform.meters().gateway();
      route.handler((PlatformHandler) ctx -> countCreateOutcome(ctx, metrics));
    }
    Right right = declaration.right();
    if (right == Right.ADMIN) {
      route
          .handler(JSON_BODIES)
          .handler(body)
          .handler(adminAuthorization)
          .handler(front.adminContract().check(declaration.id()))
          .handler(operation);
      return;
    }
    ConcurrencyLimiter limiter =
        right == Right.READ ? platform.limits().reads() : platform.limits().writes();
    if (limiter != null) {
      route.handler(new Admission(limiter, authentication::requester));
    }
    route
        .handler(JSON_BODIES)
        .handler(body)
        .handler(authentication)
        .handler(ObjectAccess.of(declaration));
    if (right == Right.READ) {
      route.handler(ErrorResponder::read);
    }
    if (platform.limits().quotas() != null) {
      route.handler(platform.limits().quotas());
    }
    ContractValidation contract = declaration.own() ? front.adminContract() : front.apiContract();
    if (!declaration.entry().commitPath()) {
      route.handler(contract.check(declaration.id()));
    }
    route.handler(operation);
  }

  @Override
  public void pages(String prefix, Handler<RoutingContext> pages) {
    router.get(prefix + "*").handler(pages);
  }

  /** Counts how each {@code version/create} ended, sheds and router refusals included. */
  private static void countCreateOutcome(RoutingContext ctx, GatewayMetrics metrics) {
    ctx.addEndHandler(
        ended -> {
          Boolean created = ctx.get(VersionRoutes.CREATED);
          if (!ctx.response().ended()) {
            return;
          }
          if (created != null) {
            metrics.versionCreated(created);
          } else if (ctx.failure() != null) {
            metrics.versionCreateFailed(ctx.failure());
          } else {
            metrics.versionCreateFailed(ApiException.invalidInput("refused by the router"));
          }
        });
    ctx.next();
  }
}
