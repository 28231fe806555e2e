package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * Stopping a gateway (SIGTERM runs the same close) drains it: readiness turns 503 at once, requests
 * in progress are answered, requests that arrive meanwhile get 503 code 17, and nothing answers
 * 500. The gateways here share the suite's database, so what they acknowledged is checked through
 * the shared gateway after they are gone.
 */
class ShutdownIT {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private static TestGateway drainable() {
    return TestGateway.dedicated(
        Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl(), "LVG_SHUTDOWN_GRACE", "20"));
  }

  @Test
  void aRequestInProgressIsAnsweredAndNewOnesGet503() throws Exception {
    TestGateway gw = drainable();
    String key = gw.newTenant("drain");
    Api api = gw.api(key);
    api.declare("d", "t");
    CompletableFuture<Api.Response> inProgress;
    CompletableFuture<Void> closing;
    try (TableLock lock = new TableLock(TestGateway.shared(), "table_versions")) {
      inProgress = api.postAsync("/v1/table/d%24t/version/create", Api.createBody(1, "d/1"));
      lock.awaitSessionsWaiting(1);
      closing = CompletableFuture.runAsync(gw.gateway::close);
      awaitReadiness(gw, 503);
      Api.Response refused =
          api.post("/v1/table/d%24t/version/create", Api.createBody(2, "d/2")).assertError(503, 17);
      assertThat(refused.raw().headers().firstValue("retry-after")).isPresent();
      assertThat(refused.raw().headers().firstValue("x-request-id")).isPresent();
      assertThat(inProgress).isNotDone();
    }
    assertThat(inProgress.get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    closing.get(30, TimeUnit.SECONDS);
    Api after = TestGateway.shared().api(key);
    assertThat(
            after
                .post("/v1/table/d%24t/version/describe", "{}")
                .assertOk()
                .path("version")
                .path("version")
                .asLong())
        .isEqualTo(1);
  }

  @Test
  void stoppingUnderLoadAnswersOnly200Or503AndKeepsEveryAcknowledgedVersion() throws Exception {
    TestGateway gw = drainable();
    String key = gw.newTenant("drain-load");
    Api api = gw.api(key);
    int writers = 8;
    for (int w = 0; w < writers; w++) {
      api.declare("n" + w, "t");
    }
    AtomicBoolean refused = new AtomicBoolean();
    Map<Integer, Long> acknowledged = new ConcurrentHashMap<>();
    List<Integer> statuses = new CopyOnWriteArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(writers);
    for (int w = 0; w < writers; w++) {
      int writer = w;
      pool.submit(
          () -> {
            long version = 1;
            while (!refused.get()) {
              HttpRequest request =
                  api.request(
                          "/v1/table/n" + writer + "%24t/version/create",
                          Api.createBody(version, "n" + writer + "/" + version))
                      .build();
              try {
                HttpResponse<String> response =
                    CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
                statuses.add(response.statusCode());
                if (response.statusCode() == 200) {
                  acknowledged.put(writer, version);
                  version++;
                }
              } catch (IOException e) {
                // Refused or closed: the gateway has stopped listening.
                refused.set(true);
              } catch (InterruptedException e) {
                return;
              }
            }
          });
    }
    Thread.sleep(1500);
    gw.gateway.close();
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    assertThat(statuses).isNotEmpty().allMatch(status -> status == 200 || status == 503);
    assertThat(acknowledged).hasSize(writers);
    Api after = TestGateway.shared().api(key);
    acknowledged.forEach(
        (writer, version) -> {
          long committed =
              after
                  .post("/v1/table/n" + writer + "%24t/version/describe", "{}")
                  .assertOk()
                  .path("version")
                  .path("version")
                  .asLong();
          // A 503 during the drain may still have committed the next version (its retry would
          // be answered 200), never fewer than the acknowledged one.
          assertThat(committed).isBetween(version, version + 1);
        });
  }

  private static void awaitReadiness(TestGateway gw, int status) throws Exception {
    HttpRequest ready =
        HttpRequest.newBuilder(URI.create(gw.managementUrl + "/health/ready")).GET().build();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (System.nanoTime() < deadline) {
      if (CLIENT.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == status) {
        return;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("readiness never answered " + status);
  }
}
