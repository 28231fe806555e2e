package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdmissionGateTest {
  private static AdmissionGate gate() {
    AdmissionGate gate = new AdmissionGate(request -> "anyone", (request, route, error, n) -> {});
    gate.add("GET", "/v1/table", null);
    gate.add("POST", "/v1/table/:id/version/create", null);
    gate.add("POST", "/v1/table/:id/version/list", null);
    gate.add("POST", "/v1/table/version/batch-create", null);
    gate.add("POST", "/v1/table/:id/:what/create", null);
    return gate;
  }

  @Test
  void aPathIsTakenForTheFirstOperationWhoseTemplateItFits() {
    AdmissionGate gate = gate();
    assertThat(gate.templateOf("POST", "/v1/table/ns%24t/version/create"))
        .isEqualTo("/v1/table/:id/version/create");
    assertThat(gate.templateOf("POST", "/v1/table/t/version/list"))
        .isEqualTo("/v1/table/:id/version/list");
    assertThat(gate.templateOf("POST", "/v1/table/version/batch-create"))
        .isEqualTo("/v1/table/version/batch-create");
    assertThat(gate.templateOf("POST", "/v1/table/t/tags/create"))
        .as("mounted later, so tried later")
        .isEqualTo("/v1/table/:id/:what/create");
    assertThat(gate.templateOf("GET", "/v1/table")).isEqualTo("/v1/table");
  }

  @Test
  void otherSpellingsMethodsAndShapesAreLeftToTheRouter() {
    AdmissionGate gate = gate();
    assertThat(gate.templateOf("GET", "/v1/table/t/version/create")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table/t/version/create/")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table//version/create")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table/a/b/version/create")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table/t/version/creates")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table/t/version/creat")).isNull();
    assertThat(gate.templateOf("POST", "/v1/table/t/version")).isNull();
    assertThat(gate.templateOf("GET", "/v1/tables")).isNull();
    assertThat(gate.templateOf("GET", "/v1/table/")).isNull();
    assertThat(gate.templateOf("GET", "v1/table")).isNull();
    assertThat(gate.templateOf("GET", "")).isNull();
    assertThat(gate.templateOf("GET", null)).isNull();
  }

  @Test
  void aTemplateIsAnAbsolutePath() {
    AdmissionGate gate = gate();
    assertThatThrownBy(() -> gate.add("GET", "v1/table", null))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> gate.add("GET", "/v1/table/", null))
        .isInstanceOf(IllegalArgumentException.class);
  }

  /**
   * Over real HTTP, with a limit of one and no waiting: while one request runs, the next is
   * answered 503 by the gate and never reaches the router; once the first is answered its slot is
   * free again.
   */
  @Test
  void aRefusalNeverReachesTheRouterAndAnAnswerFreesTheSlot() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      ConcurrencyLimiter limiter =
          new ConcurrencyLimiter(
              "writes",
              new ConcurrencyLimiter.Settings(1, 1, 1, 0, 2.0, 0, 0),
              System::nanoTime,
              (delay, task) -> () -> {},
              new ConcurrencyLimiter.Observer() {
                @Override
                public void admitted(String tenant, long waitedNanos, Grant grant) {}

                @Override
                public void refused(String tenant, ConcurrencyLimiter.Reason reason) {}
              });
      List<String> refusals = new CopyOnWriteArrayList<>();
      List<String> routed = new CopyOnWriteArrayList<>();
      List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
      CompletableFuture<Integer> port = new CompletableFuture<>();
      vertx.runOnContext(
          start -> {
            AdmissionGate gate =
                new AdmissionGate(
                    request -> "tenant:1",
                    (request, route, error, nanos) ->
                        refusals.add(route + " " + error.getMessage()));
            gate.add("POST", "/v1/table/:id/version/create", limiter);
            Router router = Router.router(vertx);
            router.route().handler(gate::claim);
            router
                .post("/v1/table/:id/version/create")
                .handler(
                    ctx -> {
                      routed.add(ctx.pathParam("id"));
                      if (ctx.pathParam("id").equals("slow")) {
                        held.add(ctx.request());
                      } else {
                        ctx.response().end("done");
                      }
                    });
            HttpServer server =
                vertx.createHttpServer().requestHandler(request -> gate.handle(request, router));
            server
                .listen(0, "127.0.0.1")
                .onSuccess(listening -> port.complete(listening.actualPort()));
          });
      String base = "http://127.0.0.1:" + port.get(10, TimeUnit.SECONDS);
      HttpClient client = HttpClient.newHttpClient();
      CompletableFuture<HttpResponse<String>> slow =
          post(client, base + "/v1/table/slow/version/create");
      while (held.isEmpty()) {
        Thread.sleep(5);
      }
      HttpResponse<String> refused = post(client, base + "/v1/table/t1/version/create").join();
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.body()).contains("\"code\":17").contains("Slow down");
      assertThat(refused.headers().firstValue("retry-after")).isPresent();
      assertThat(routed).containsExactly("slow");
      assertThat(refusals).hasSize(1);
      assertThat(refusals.get(0)).startsWith("/v1/table/:id/version/create ");

      held.get(0).response().end("done");
      assertThat(slow.join().statusCode()).isEqualTo(200);
      assertThat(post(client, base + "/v1/table/t2/version/create").join().statusCode())
          .isEqualTo(200);
      assertThat(routed).containsExactly("slow", "t2");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (limiter.running() > 0 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      assertThat(limiter.running()).as("every slot is released once its answer is out").isZero();
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  private static CompletableFuture<HttpResponse<String>> post(HttpClient client, String url) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(url))
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
