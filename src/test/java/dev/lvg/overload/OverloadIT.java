package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A gateway with tiny limits sheds load with 503 "Slow down", and a shed commit writes nothing. */
class OverloadIT {
  private static final int TABLES = 64;

  @Test
  void shedRequestsAre503Code17AndNeverCommit() {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_POOL_SIZE", "1",
                "LVG_DB_QUEUE_SIZE", "2",
                "LVG_MAX_IN_FLIGHT", "8"));
    try {
      Api api = gw.api(gw.newTenant("overload"));
      api.post("/v1/namespace/o/create", "{}").assertOk();
      for (int i = 0; i < TABLES; i++) {
        api.post("/v1/table/o%24t" + i + "/declare", "{}").assertOk();
      }
      List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
      for (int i = 0; i < TABLES; i++) {
        calls.add(
            api.postAsync("/v1/table/o%24t" + i + "/version/create", Api.createBody(1, "o/" + i)));
      }
      int readyWhileLoaded =
          Api.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(gw.managementUrl + "/health/ready"))
                      .GET()
                      .build())
              .status();
      int shed = 0;
      for (int i = 0; i < TABLES; i++) {
        Api.Response response = calls.get(i).join();
        JsonNode list = listWithRetry(api, i);
        if (response.status() == 200) {
          assertThat(list.get("versions")).as("table %d", i).hasSize(1);
        } else {
          response.assertError(503, 17);
          assertThat(response.json().get("title").asText()).isEqualTo("Slow down");
          assertThat(response.raw().headers().firstValue("retry-after")).isPresent();
          assertThat(list.get("versions")).as("table %d", i).isEmpty();
          shed++;
        }
      }
      assertThat(shed).isPositive().isLessThan(TABLES);
      assertThat(readyWhileLoaded)
          .as("a saturated pool does not make the gateway unready")
          .isEqualTo(200);
    } finally {
      gw.gateway.close();
    }
  }

  private static JsonNode listWithRetry(Api api, int table) {
    for (int attempt = 0; attempt < 50; attempt++) {
      Api.Response response = api.post("/v1/table/o%24t" + table + "/version/list", null);
      if (response.status() == 200) {
        return response.json();
      }
      response.assertError(503, 17);
    }
    throw new AssertionError("the gateway kept shedding a lone request");
  }
}
