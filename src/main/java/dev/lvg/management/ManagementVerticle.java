package dev.lvg.management;

import dev.lvg.http.AdminContract;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/** Health and metrics on their own port, apart from the API. */
public final class ManagementVerticle extends VerticleBase {
  private static final long READY_TIMEOUT_MS = 2000;

  private final String host;
  private final int port;
  private final Pool pool;
  private final PrometheusMeterRegistry registry;
  private final AtomicBoolean draining;
  private final Supplier<String> openApi;
  private HttpServer server;

  /**
   * Readiness reports 503 once {@code draining} is set, whatever the database says; {@code openApi}
   * makes the OpenAPI document of the API (once, on a worker thread: it may block).
   */
  public ManagementVerticle(
      String host,
      int port,
      Pool pool,
      PrometheusMeterRegistry registry,
      AtomicBoolean draining,
      Supplier<String> openApi) {
    this.host = host;
    this.port = port;
    this.pool = pool;
    this.registry = registry;
    this.draining = draining;
    this.openApi = openApi;
  }

  @Override
  public Future<?> start() {
    Router router = Router.router(vertx);
    // Made once, on a worker thread: it reads and cuts the upstream contract.
    Future<String> document = vertx.executeBlocking(openApi::get, false);
    router.get("/health/live").handler(ctx -> status(ctx, 200, "UP"));
    router.get("/health/ready").handler(this::ready);
    router
        .get("/openapi.yaml")
        .handler(
            ctx ->
                document
                    .onSuccess(
                        text ->
                            ctx.response()
                                .putHeader("Content-Type", "application/yaml; charset=utf-8")
                                .end(text))
                    .onFailure(ctx::fail));
    router
        .get("/openapi-admin.yaml")
        .handler(
            ctx ->
                ctx.response()
                    .putHeader("Content-Type", "application/yaml; charset=utf-8")
                    .end(AdminContract.text()));
    router
        .get("/metrics")
        .handler(
            ctx ->
                vertx
                    .<String>executeBlocking(registry::scrape, false)
                    .onSuccess(
                        text ->
                            ctx.response()
                                .putHeader(
                                    "Content-Type", "text/plain; version=0.0.4; charset=utf-8")
                                .end(text))
                    .onFailure(ctx::fail));
    return vertx
        .createHttpServer()
        .requestHandler(router)
        .listen(port, host)
        .onSuccess(listening -> server = listening);
  }

  private void ready(RoutingContext ctx) {
    if (draining.get()) {
      status(ctx, 503, "DRAINING");
      return;
    }
    pool.query("SELECT 1")
        .execute()
        .timeout(READY_TIMEOUT_MS, TimeUnit.MILLISECONDS)
        .onComplete(
            result -> {
              if (result.succeeded()) {
                status(ctx, 200, "UP");
              } else {
                status(ctx, 503, "DOWN");
              }
            });
  }

  private static void status(RoutingContext ctx, int code, String status) {
    ctx.response()
        .setStatusCode(code)
        .putHeader("Content-Type", "application/json")
        .end("{\"status\":\"" + status + "\"}");
  }

  /** The port it listens on. */
  public int actualPort() {
    return server.actualPort();
  }

  @Override
  public Future<?> stop() {
    return server == null ? Future.succeededFuture() : server.close();
  }
}
