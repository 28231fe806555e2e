package dev.lvg.bench;

import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;

/**
 * A server that answers every request at once (503 with a small JSON body for a version create,
 * after reading the request), on two event loops: run against it, the load generator shows the
 * latency the machine and the generator add by themselves, the floor under every latency the
 * benchmarks report. {@code InstantServer PORT}; runs until killed.
 */
public final class InstantServer {
  private InstantServer() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    Vertx vertx = Vertx.vertx();
    vertx
        .deployVerticle(
            () ->
                new VerticleBase() {
                  @Override
                  public Future<?> start() {
                    return vertx
                        .createHttpServer()
                        .requestHandler(
                            request -> request.end().onComplete(read -> answer(request)))
                        .listen(port, "127.0.0.1");
                  }
                },
            new DeploymentOptions().setInstances(2))
        .toCompletionStage()
        .toCompletableFuture()
        .get();
    System.out.println("instant server listening on 127.0.0.1:" + port);
    Thread.currentThread().join();
  }

  /** A version create is shed at once, as by a saturated gateway; set-up calls succeed. */
  private static void answer(HttpServerRequest request) {
    HttpServerResponse response = request.response().putHeader("Content-Type", "application/json");
    if (request.path().endsWith("/version/create")) {
      response.setStatusCode(503).end("{\"code\":17,\"title\":\"Slow down\"}");
    } else {
      response.end("{}");
    }
  }
}
