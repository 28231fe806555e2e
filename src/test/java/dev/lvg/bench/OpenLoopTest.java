package dev.lvg.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.VertxInstances;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class OpenLoopTest {
  private Vertx vertx;
  private HttpServer server;
  private final AtomicInteger connections = new AtomicInteger();
  private final List<HttpConnection> open = new CopyOnWriteArrayList<>();
  private final List<String> bodies = new ArrayList<>();

  /**
   * Answers {@code /ok} 200, {@code /shed} 503, {@code /close} 200 and closes the connection, and
   * {@code /slow} 200 after 200 ms; every answer has a body, so its length must be honoured.
   */
  @BeforeEach
  void start() throws Exception {
    vertx = Vertx.vertx();
    server =
        vertx
            .createHttpServer()
            .connectionHandler(
                connection -> {
                  connections.incrementAndGet();
                  open.add(connection);
                  connection.closeHandler(closed -> open.remove(connection));
                })
            .requestHandler(
                request ->
                    request
                        .body()
                        .onSuccess(
                            body -> {
                              synchronized (bodies) {
                                bodies.add(body.toString());
                              }
                              String path = request.path();
                              if (path.equals("/slow")) {
                                vertx.setTimer(
                                    200, fired -> request.response().end("{\"late\":true}"));
                              } else if (path.equals("/close")) {
                                request
                                    .response()
                                    .putHeader("Connection", "close")
                                    .end("{\"bye\":true}");
                              } else {
                                request
                                    .response()
                                    .setStatusCode(path.equals("/shed") ? 503 : 200)
                                    .end("{\"answer\":\"" + "x".repeat(3000) + "\"}");
                              }
                            }))
            .listen(0, "127.0.0.1")
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
  }

  @AfterEach
  void stop() throws Exception {
    VertxInstances.close(vertx);
  }

  private OpenLoop openLoop(int maxConnections) {
    return new OpenLoop(new InetSocketAddress("127.0.0.1", server.actualPort()), maxConnections);
  }

  private static byte[] post(String path, long n) {
    return OpenLoop.post("127.0.0.1", path, "k", "{\"n\":" + n + "}");
  }

  @Test
  void everyRequestIsAnsweredAndCountedByStatusOnConnectionsThatStayOpen() throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    List<Long> scheduled = new ArrayList<>();
    long before = System.nanoTime();
    try (OpenLoop load = openLoop(64)) {
      load.run(
          1000,
          300,
          n -> post(n % 3 == 0 ? "/shed" : "/ok", n),
          (status, at) -> {
            statuses.merge(status, 1, Integer::sum);
            scheduled.add(at);
          });
      int afterFirstRun = connections.get();
      load.run(
          1000, 100, n -> post("/ok", n), (status, at) -> statuses.merge(status, 1, Integer::sum));
      assertThat(connections.get())
          .as("the second run reuses the first run's connections")
          .isEqualTo(afterFirstRun);
    }
    assertThat(statuses).containsExactlyInAnyOrderEntriesOf(Map.of(200, 300, 503, 100));
    assertThat(connections.get()).as("never more than the cap").isLessThanOrEqualTo(64);
    assertThat(bodies).hasSize(400).contains("{\"n\":0}", "{\"n\":299}");
    // Request n was due 1 ms after request n - 1, from the start of the run; answers may come
    // in another order.
    long first = Collections.min(scheduled);
    assertThat(first).isGreaterThanOrEqualTo(before);
    assertThat(Collections.max(scheduled) - first)
        .isBetween(TimeUnit.MILLISECONDS.toNanos(298), TimeUnit.MILLISECONDS.toNanos(300));
  }

  @Test
  void aClosedConnectionIsReplacedAndARequestWaitingForAConnectionCountsItsWait() throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    List<Long> latencies = new ArrayList<>();
    long[] late;
    try (OpenLoop load = openLoop(2)) {
      load.run(
          200,
          20,
          n -> post(n % 2 == 0 ? "/close" : "/ok", n),
          (status, at) -> statuses.merge(status, 1, Integer::sum));
      // Two connections, each held 200 ms by a slow answer: the third request waits for one.
      load.run(
          1000, 3, n -> post("/slow", n), (status, at) -> latencies.add(System.nanoTime() - at));
      late = load.lateness();
    }
    assertThat(late).hasSize(3);
    assertThat(late[0])
        .as("the first leaves on time")
        .isLessThan(TimeUnit.MILLISECONDS.toNanos(100));
    assertThat(late[2])
        .as("the third leaves once a connection is free")
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(190));
    assertThat(statuses).containsExactly(Map.entry(200, 20));
    assertThat(connections.get()).as("each Connection: close costs a new one").isGreaterThan(10);
    assertThat(latencies).hasSize(3);
    assertThat(latencies.stream().mapToLong(Long::longValue).max().getAsLong())
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(390));
  }

  @Test
  void connectionsTheServerClosedBetweenRunsAreNotUsedAgain() throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    try (OpenLoop load = openLoop(8)) {
      load.run(
          1000, 50, n -> post("/ok", n), (status, at) -> statuses.merge(status, 1, Integer::sum));
      int kept = open.size();
      // What a server's idle timeout does to connections a client keeps between two runs.
      open.forEach(HttpConnection::close);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (!open.isEmpty() && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Thread.sleep(100);
      load.run(
          1000, 50, n -> post("/ok", n), (status, at) -> statuses.merge(status, 1, Integer::sum));
      assertThat(kept).isPositive();
    }
    assertThat(statuses).containsExactly(Map.entry(200, 100));
  }

  @Test
  void connectionsOpenedBeforeARunCarryItsFirstRequestsUpToTheCap() throws Exception {
    Map<Integer, Integer> statuses = new TreeMap<>();
    try (OpenLoop load = openLoop(4)) {
      // Eight requests 50 ms apart, each answered at once: one connection would carry them all.
      // The first requests take the connections open before the run in turn, one each.
      load.connect(4);
      assertThat(bodies).as("no request before the run").isEmpty();
      load.run(20, 8, n -> post("/ok", n), (status, at) -> statuses.merge(status, 1, Integer::sum));
      assertThat(connections.get()).as("the four opened before the run").isEqualTo(4);
      load.connect(10);
      load.run(20, 8, n -> post("/ok", n), (status, at) -> statuses.merge(status, 1, Integer::sum));
      assertThat(connections.get()).as("never more than the cap").isEqualTo(4);
    }
    assertThat(statuses).containsExactly(Map.entry(200, 16));
  }
}
