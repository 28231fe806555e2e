package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.VertxInstances;
import dev.lvg.http.ErrorResponder;
import dev.lvg.http.OutageLog;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.handler.BodyHandler;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Admission} over real HTTP, with a limit of one: the request holding the slot is answered
 * by hand, so each test decides when the slot is freed.
 */
class AdmissionTest {
  private final Vertx vertx = Vertx.vertx();
  private final HttpClient client = HttpClient.newHttpClient();
  private final List<String> bodiesRead = new CopyOnWriteArrayList<>();
  private final List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
  private ConcurrencyLimiter limiter;
  private String base;

  @AfterEach
  void close() throws Exception {
    VertxInstances.close(vertx);
  }

  /** A server whose one operation is behind a limit of one, waiting at most {@code waitMillis}. */
  private void serve(long waitMillis) throws Exception {
    limiter =
        new ConcurrencyLimiter(
            "writes",
            new LimiterSettings(1, 1, 1, TimeUnit.MILLISECONDS.toNanos(waitMillis), 2.0, 0, 0),
            null,
            System::nanoTime,
            (delay, task) -> {
              long timer =
                  vertx.setTimer(
                      Math.max(1, TimeUnit.NANOSECONDS.toMillis(delay)), fired -> task.run());
              return () -> vertx.cancelTimer(timer);
            },
            new AdmissionObserver() {
              @Override
              public void admitted(String requester, long waitedNanos, Grant grant) {}

              @Override
              public void refused(String requester, RefusalReason reason) {}
            });
    Router router = Router.router(vertx);
    router
        .post("/v1/table/:id/version/create")
        .handler(new Admission(limiter, ctx -> "tenant:1"))
        .handler(BodyHandler.create(false))
        .handler(
            ctx -> {
              bodiesRead.add(ctx.pathParam("id") + " " + ctx.body().asString());
              if (ctx.pathParam("id").equals("slow")) {
                held.add(ctx.request());
              } else {
                ctx.response().end("done");
              }
            })
        .failureHandler(new ErrorResponder(1024, new OutageLog()));
    int port =
        vertx
            .createHttpServer()
            .requestHandler(router)
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS)
            .actualPort();
    base = "http://127.0.0.1:" + port;
  }

  private CompletableFuture<HttpResponse<String>> post(String id, String body) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(base + "/v1/table/" + id + "/version/create"))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Waits up to 5 s for {@code condition}; the caller asserts what it needs. */
  private static void awaitUntil(BooleanSupplier condition) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
    while (!condition.getAsBoolean() && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
  }

  private void awaitHeld() throws InterruptedException {
    awaitUntil(() -> !held.isEmpty());
    assertThat(held).as("the first request holds the slot").hasSize(1);
  }

  private void awaitNothingRunning() throws InterruptedException {
    awaitUntil(() -> limiter.running() == 0);
    assertThat(limiter.running()).as("every slot is released once its answer is out").isZero();
  }

  @Test
  void aRefusalIsA503BeforeTheBodyIsReadAndAnAnswerFreesTheSlot() throws Exception {
    serve(0);
    CompletableFuture<HttpResponse<String>> slow = post("slow", "{\"a\":1}");
    awaitHeld();

    HttpResponse<String> refused = post("t1", "{\"b\":2}").join();
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("\"code\":17").contains("Slow down");
    assertThat(refused.headers().firstValue("retry-after")).isPresent();
    assertThat(bodiesRead).as("the refused body is never read").containsExactly("slow {\"a\":1}");

    held.get(0).response().end("done");
    assertThat(slow.join().statusCode()).isEqualTo(200);
    assertThat(post("t2", "{\"c\":3}").join().statusCode()).isEqualTo(200);
    assertThat(bodiesRead).containsExactly("slow {\"a\":1}", "t2 {\"c\":3}");
    awaitNothingRunning();
  }

  @Test
  void aWaitingRequestRunsWithItsWholeBodyOnceTheSlotIsFreed() throws Exception {
    serve(10_000);
    CompletableFuture<HttpResponse<String>> slow = post("slow", "{}");
    awaitHeld();

    String body = "{\"pad\":\"" + "x".repeat(100_000) + "\"}";
    CompletableFuture<HttpResponse<String>> waiting = post("t1", body);
    awaitUntil(() -> limiter.waiting() == 1);
    assertThat(limiter.waiting()).isEqualTo(1);
    assertThat(waiting).as("it waits while the slot is held").isNotDone();
    assertThat(bodiesRead).containsExactly("slow {}");

    vertx.runOnContext(free -> held.get(0).response().end("done"));
    assertThat(slow.join().statusCode()).isEqualTo(200);
    assertThat(waiting.join().statusCode()).isEqualTo(200);
    assertThat(bodiesRead).containsExactly("slow {}", "t1 " + body);
    awaitNothingRunning();
  }

  @Test
  void aWaiterWhoseDeadlinePassesIsRefusedAndNeverRuns() throws Exception {
    serve(100);
    CompletableFuture<HttpResponse<String>> slow = post("slow", "{}");
    awaitHeld();

    HttpResponse<String> refused = post("t1", "{}").join();
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.body()).contains("within 100 ms");
    assertThat(bodiesRead).containsExactly("slow {}");

    vertx.runOnContext(free -> held.get(0).response().end("done"));
    assertThat(slow.join().statusCode()).isEqualTo(200);
    awaitNothingRunning();
  }
}
