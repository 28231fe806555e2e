package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpRequest;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When PostgreSQL goes away the gateway says so: not ready, and 503 code 17 instead of a 500. */
class DatabaseOutageIT {

  @Test
  void lostDatabaseMeansNotReadyAnd503() {
    TestGateway gw = TestGateway.dedicated(Map.of("LVG_DB_URL", ""));
    try {
      Api api = gw.api(gw.newTenant("outage"));
      api.declare("d", "t");
      api.post("/v1/table/d%24t/version/create", Api.createBody(1, "d/1")).assertOk();
      assertThat(ready(gw)).isEqualTo(200);

      gw.gateway.embeddedDatabase().close();

      assertThat(ready(gw)).isEqualTo(503);
      Metrics before = Metrics.scrape(gw);
      api.post("/v1/table/d%24t/version/create", Api.createBody(2, "d/2")).assertError(503, 17);
      Metrics after = Metrics.scrape(gw);
      assertThat(after.since(before, Metrics.createOutcome("unavailable"))).isEqualTo(1);
      assertThat(after.since(before, Metrics.createOutcome("error"))).isZero();
      assertThat(after.since(before, Metrics.createOutcome("shed"))).isZero();
      api.post("/v1/table/d%24t/version/list", null).assertError(503, 17);
      api.post("/v1/table/d%24t/describe", "{}").assertError(503, 17);
    } finally {
      gw.gateway.close();
    }
  }

  private static int ready(TestGateway gw) {
    return Api.send(
            HttpRequest.newBuilder(URI.create(gw.managementUrl + "/health/ready")).GET().build())
        .status();
  }
}
