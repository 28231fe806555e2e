package dev.lvg.management;

import static dev.lvg.Metrics.createOutcome;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ManagementIT {
  private static Api.Response get(String url) {
    return Api.send(HttpRequest.newBuilder(URI.create(url)).GET().build());
  }

  @Test
  void healthAndMetricsAnswerOnTheManagementPort() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("mgmt"));
    api.declare("m", "t");
    Metrics before = Metrics.scrape(gw);
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/1")).assertOk();
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/1")).assertOk();
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/other")).assertError(409, 14);
    api.post("/v1/table/m%24missing/version/create", Api.createBody(1, "m/1")).assertError(404, 4);
    api.post("/v1/table/m%24t/version/create", "{\"version\":-1}").assertError(400, 13);

    assertThat(get(gw.managementUrl + "/health/live").status()).isEqualTo(200);
    Api.Response ready = get(gw.managementUrl + "/health/ready");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("status").asText()).isEqualTo("UP");

    Api.Response raw = get(gw.managementUrl + "/metrics");
    assertThat(raw.raw().headers().firstValue("content-type").orElse("")).startsWith("text/plain");
    Metrics after = Metrics.scrape(gw);
    assertThat(after.since(before, createOutcome("created"))).isEqualTo(1);
    assertThat(after.since(before, createOutcome("replayed"))).isEqualTo(1);
    assertThat(after.since(before, createOutcome("conflict"))).isEqualTo(1);
    assertThat(after.since(before, createOutcome("not_found"))).isEqualTo(1);
    assertThat(after.since(before, createOutcome("invalid"))).isEqualTo(1);
    assertThat(after.since(before, createOutcome("error"))).isZero();
    String route = "method=\"POST\",route=\"/v1/table/:id/version/create\"";
    assertThat(
            after.since(
                before, "lvg_http_server_requests_seconds_count{" + route + ",status=\"200\"}"))
        .isEqualTo(2);
    assertThat(
            after.since(
                before, "lvg_http_server_requests_seconds_count{" + route + ",status=\"409\"}"))
        .isEqualTo(1);
    assertThat(after.text())
        .contains("vertx_pool_in_use{pool_name=\"lvg\",pool_type=\"sql\"}")
        .contains("lvg_commit_batch_size");
    // The readiness probe above ran on the management port's own connection, metered apart.
    String healthPool = "{pool_name=\"lvg-health\",pool_type=\"sql\"}";
    assertThat(after.since(before, "vertx_pool_management_completed_total" + healthPool))
        .isGreaterThanOrEqualTo(1);
    assertThat(after.text()).doesNotContain("key-");
  }

  @Test
  void everyBackgroundJobRunsAndIsCounted() throws Exception {
    TestGateway gw = TestGateway.shared();
    // Webhook delivery runs where it is turned on; WebhookIT covers it.
    List<String> jobs =
        List.of("outage-tick", "credential-check", "table-drops", "feed-recorded", "feed-expiry");
    // The slowest first run comes five seconds after start.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    List<String> notYet = jobs;
    while (!notYet.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(200);
      Metrics metrics = Metrics.scrape(gw);
      notYet =
          jobs.stream()
              .filter(
                  job ->
                      metrics.value("lvg_job_runs_total{job=\"" + job + "\",outcome=\"succeeded\"}")
                          <= 0)
              .toList();
    }
    assertThat(notYet).as("jobs that never ran").isEmpty();
  }

  @Test
  void shedCommitsAreCountedAsShedNotAsErrors() {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_TENANT_RATE", "1",
                "LVG_TENANT_BURST", "1"));
    try {
      Api api = gw.api(gw.newTenant("shed"));
      Metrics before = Metrics.scrape(gw);
      int shed = 0;
      for (int i = 0; i < 5; i++) {
        Api.Response response =
            api.post("/v1/table/s%24t/version/create", Api.createBody(1, "s/1"));
        if (response.status() == 503) {
          response.assertError(503, 17);
          shed++;
        }
      }
      Metrics after = Metrics.scrape(gw);
      assertThat(shed).isPositive();
      assertThat(after.since(before, createOutcome("shed"))).isEqualTo(shed);
      assertThat(after.since(before, createOutcome("unavailable"))).isZero();
      assertThat(after.since(before, createOutcome("error"))).isZero();
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void apiPortDoesNotServeManagementRoutes() {
    TestGateway gw = TestGateway.shared();
    get(gw.baseUrl + "/metrics").assertError(406, 0);
  }
}
