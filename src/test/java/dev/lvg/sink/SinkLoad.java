package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/** The load the sinks' tests commit, and the events the gateway's own feed holds for it. */
final class SinkLoad {
  static final int WRITERS = 8;

  private SinkLoad() {}

  /**
   * Versions {@code from} to {@code to} of each of {@code tables} tables in namespace ns, {@value
   * #WRITERS} writers at once, each version sent twice (the replay answers 200 and records nothing)
   * and once more with another manifest (409, refused); the first round declares the tables.
   */
  static void commit(Api owner, ExecutorService writers, int tables, int from, int to)
      throws Exception {
    List<Future<?>> done = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      int writer = w;
      done.add(
          writers.submit(
              () -> {
                for (int t = writer; t < tables; t += WRITERS) {
                  String table = "/v1/table/ns%24t" + t;
                  if (from == 1) {
                    owner.post(table + "/declare", "{}").assertOk();
                  }
                  for (int v = from; v <= to; v++) {
                    String body = Api.createBody(v, "t" + t + "/" + v);
                    owner.post(table + "/version/create", body).assertOk();
                    owner.post(table + "/version/create", body).assertOk();
                    owner
                        .post(table + "/version/create", Api.createBody(v, "t" + t + "/other"))
                        .assertError(409, 14);
                  }
                }
              }));
    }
    for (Future<?> one : done) {
      one.get(120, TimeUnit.SECONDS);
    }
  }

  /**
   * Commits 102 events (a namespace, a table, 100 versions; each answered 200) through a gateway
   * whose sink {@code sink} cannot publish, and waits until its gauges say so: every event behind,
   * failures counted, nothing published.
   */
  static void commitWhileRefused(TestGateway gw, Api owner, String sink) throws Exception {
    owner.post("/v1/namespace/ns/create", "{}").assertOk();
    owner.post("/v1/table/ns%24t/declare", "{}").assertOk();
    for (int v = 1; v <= 100; v++) {
      owner.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
    }
    String lag = "lvg_feed_sink_lag_events{sink=\"" + sink + "\"}";
    long deadline = System.nanoTime() + 20_000_000_000L;
    Metrics metrics = Metrics.scrape(gw);
    while ((metrics.value(lag) < 102
            || metrics.value("lvg_feed_sink_failures_total{sink=\"" + sink + "\"}") == 0)
        && System.nanoTime() < deadline) {
      Thread.sleep(100);
      metrics = Metrics.scrape(gw);
    }
    assertThat(metrics.value(lag)).isEqualTo(102.0);
    assertThat(metrics.value("lvg_feed_sink_failures_total{sink=\"" + sink + "\"}")).isPositive();
    assertThat(metrics.value("lvg_feed_sink_published_total{sink=\"" + sink + "\"}")).isZero();
  }

  /** The ids of every event of the owner's tenant, read from the gateway's own feed. */
  static List<String> expected(Api owner) {
    List<String> ids = new ArrayList<>();
    String token = "";
    while (true) {
      JsonNode page =
          owner
              .post("/v1/events", "{\"continuation-token\":\"" + token + "\",\"page-size\":1000}")
              .assertOk();
      page.get("events").forEach(event -> ids.add(event.get("id").asText()));
      if (page.get("continuation-token").asText().equals(token)) {
        return ids;
      }
      token = page.get("continuation-token").asText();
    }
  }
}
