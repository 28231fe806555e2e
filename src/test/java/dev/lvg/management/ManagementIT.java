package dev.lvg.management;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
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
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/1")).assertOk();
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/1")).assertOk();
    api.post("/v1/table/m%24t/version/create", Api.createBody(1, "m/other")).assertError(409, 14);

    assertThat(get(gw.managementUrl + "/health/live").status()).isEqualTo(200);
    Api.Response ready = get(gw.managementUrl + "/health/ready");
    assertThat(ready.status()).isEqualTo(200);
    assertThat(ready.json().get("status").asText()).isEqualTo("UP");

    Api.Response metrics = get(gw.managementUrl + "/metrics");
    assertThat(metrics.status()).isEqualTo(200);
    assertThat(metrics.raw().headers().firstValue("content-type").orElse(""))
        .startsWith("text/plain");
    assertThat(metric(metrics.text(), "lvg_version_create_total{outcome=\"created\"}"))
        .isGreaterThanOrEqualTo(1);
    assertThat(metric(metrics.text(), "lvg_version_create_total{outcome=\"replayed\"}"))
        .isGreaterThanOrEqualTo(1);
    assertThat(metric(metrics.text(), "lvg_version_create_total{outcome=\"conflict\"}"))
        .isGreaterThanOrEqualTo(1);
    assertThat(metrics.text()).contains("vertx_http_server_requests_total").contains("vertx_pool_");
    assertThat(metrics.text()).doesNotContain("key-");
  }

  private static double metric(String text, String series) {
    return text.lines()
        .filter(line -> line.startsWith(series + " "))
        .mapToDouble(line -> Double.parseDouble(line.substring(series.length() + 1).trim()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no series " + series));
  }

  @Test
  void apiPortDoesNotServeManagementRoutes() {
    TestGateway gw = TestGateway.shared();
    get(gw.baseUrl + "/metrics").assertError(406, 0);
  }
}
