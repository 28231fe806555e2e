package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
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
    return drainable(Map.of());
  }

  private static TestGateway drainable(Map<String, String> more) {
    Map<String, String> settings = new HashMap<>(more);
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_SHUTDOWN_GRACE", "20");
    return TestGateway.dedicated(settings);
  }

  /** A create held by a lock on its row, and the gateway's close under way. */
  private record Drain(
      CompletableFuture<Api.Response> inProgress, CompletableFuture<Void> closing) {}

  /**
   * Sends a create of version 1 of {@code namespace}$t, waits until the {@code lock} holds it, then
   * starts closing {@code gw} and returns once its readiness answers 503.
   */
  private static Drain closeWithOneInProgress(
      TestGateway gw, Api api, TableLock lock, String namespace) throws Exception {
    CompletableFuture<Api.Response> inProgress =
        api.postAsync(
            "/v1/table/" + namespace + "%24t/version/create", Api.createBody(1, namespace + "/1"));
    lock.awaitSessionsWaiting(1);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(gw.gateway::close);
    awaitReadiness(gw, 503);
    return new Drain(inProgress, closing);
  }

  @Test
  void aRequestInProgressIsAnsweredAndNewOnesGet503() throws Exception {
    TestGateway gw = drainable();
    String key = gw.newTenant("drain");
    Api api = gw.api(key);
    api.declare("d", "t");
    Drain drain;
    try (TableLock lock = new TableLock(TestGateway.shared(), "table_versions")) {
      drain = closeWithOneInProgress(gw, api, lock, "d");
      Api.Response refused =
          api.post("/v1/table/d%24t/version/create", Api.createBody(2, "d/2")).assertError(503, 17);
      assertThat(refused.raw().headers().firstValue("retry-after")).isPresent();
      assertThat(refused.raw().headers().firstValue("x-request-id")).isPresent();
      assertThat(drain.inProgress()).isNotDone();
    }
    assertThat(drain.inProgress().get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    drain.closing().get(30, TimeUnit.SECONDS);
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
  void keptConnectionsOfEveryEventLoopGet503WhileARequestIsInProgress() throws Exception {
    TestGateway gw = drainable(Map.of("LVG_HTTP_INSTANCES", "2"));
    String key = gw.newTenant("drain-kept");
    Api api = gw.api(key);
    api.declare("k", "t");
    URI base = URI.create(gw.baseUrl);
    // Connections are spread over both event loops; each has served one request and is kept open.
    List<Socket> kept = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      Socket socket = new Socket(base.getHost(), base.getPort());
      socket.setSoTimeout(10_000);
      kept.add(socket);
      assertThat(describe(socket, key)).startsWith("HTTP/1.1 200");
    }
    Drain drain;
    try (TableLock lock = new TableLock(TestGateway.shared(), "table_versions")) {
      drain = closeWithOneInProgress(gw, api, lock, "k");
      // Time for an event loop with nothing in progress to close its connections, were it to.
      Thread.sleep(300);
      for (Socket socket : kept) {
        assertThat(describe(socket, key)).startsWith("HTTP/1.1 503");
      }
      assertThat(drain.inProgress()).isNotDone();
    } finally {
      for (Socket socket : kept) {
        socket.close();
      }
    }
    assertThat(drain.inProgress().get(30, TimeUnit.SECONDS).status()).isEqualTo(200);
    drain.closing().get(30, TimeUnit.SECONDS);
  }

  /**
   * Asks for a description of k$t on {@code socket} and returns the answer's status line once its
   * whole body is read, or what the connection said instead.
   */
  private static String describe(Socket socket, String key) throws IOException {
    String head =
        "POST /v1/table/k%24t/describe HTTP/1.1\r\nHost: gateway\r\nx-api-key: "
            + key
            + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}";
    OutputStream out = socket.getOutputStream();
    out.write(head.getBytes(StandardCharsets.US_ASCII));
    out.flush();
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream answer = new ByteArrayOutputStream();
    int lastFour = 0;
    while (lastFour != 0x0d0a0d0a) {
      int b = in.read();
      if (b < 0) {
        return "closed after " + answer.size() + " bytes";
      }
      answer.write(b);
      lastFour = lastFour << 8 | b;
    }
    String answerHead = answer.toString(StandardCharsets.US_ASCII);
    int length = 0;
    for (String line : answerHead.split("\r\n")) {
      if (line.toLowerCase(Locale.ROOT).startsWith("content-length:")) {
        length = Integer.parseInt(line.substring("content-length:".length()).trim());
      }
    }
    in.readNBytes(length);
    return answerHead.substring(0, answerHead.indexOf("\r\n"));
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
