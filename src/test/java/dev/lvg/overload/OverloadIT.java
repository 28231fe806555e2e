package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import dev.lvg.auth.Authentication;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A gateway with a tiny admission limit, driven far past it: every refusal is 503 "Slow down" with
 * Retry-After and the JSON error body, refused commits write nothing, admitted ones are committed,
 * a quiet tenant keeps succeeding while a noisy one is shed, and readiness stays up; made-up API
 * keys and bearer tokens, however many, count as one requester.
 */
class OverloadIT {
  private static final int NOISY = 200;
  private static TestGateway gw;

  @BeforeAll
  static void start() {
    gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_ADMISSION_INITIAL_LIMIT", "2",
                "LVG_ADMISSION_MIN_LIMIT", "1",
                "LVG_ADMISSION_MAX_LIMIT", "2",
                "LVG_ADMISSION_MAX_WAIT_MS", "1000"));
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
  }

  private static Api tenantWithTables(String name, int tables) {
    Api api = gw.api(gw.newTenant(name));
    api.post("/v1/namespace/o/create", "{}").assertOk();
    StringBuilder operations = new StringBuilder("{\"operations\":[");
    for (int i = 0; i < tables; i++) {
      operations
          .append(i == 0 ? "" : ",")
          .append("{\"declare_table\":{\"id\":[\"o\",\"t")
          .append(i)
          .append("\"]}}");
    }
    api.post("/v1/table/batch-commit", operations.append("]}").toString()).assertOk();
    return api;
  }

  private static String create(int table) {
    return "/v1/table/o%24t" + table + "/version/create";
  }

  @Test
  void farPastItsLimitTheGatewaySaysSlowDownAndStaysCorrect() throws Exception {
    Api noisy = tenantWithTables("noisy", NOISY);
    Api quiet = tenantWithTables("quiet", 10);
    Metrics before = Metrics.scrape(gw);

    List<CompletableFuture<Api.Response>> flood = new ArrayList<>();
    for (int i = 0; i < NOISY; i++) {
      flood.add(noisy.postAsync(create(i), Api.createBody(1, "o/" + i)));
    }
    List<Api.Response> quietAnswers = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      quietAnswers.add(quiet.post(create(i), Api.createBody(1, "q/" + i)));
    }
    int readyWhileLoaded =
        Api.send(
                HttpRequest.newBuilder(URI.create(gw.managementUrl + "/health/ready"))
                    .GET()
                    .build())
            .status();

    int shed = 0;
    for (int i = 0; i < NOISY; i++) {
      Api.Response response = flood.get(i).join();
      JsonNode versions = noisy.post("/v1/table/o%24t" + i + "/version/list", null).assertOk();
      if (response.status() == 200) {
        assertThat(versions.get("versions")).as("table %d", i).hasSize(1);
      } else {
        response.assertError(503, 17);
        assertThat(response.json().get("title").asText()).isEqualTo("Slow down");
        assertThat(response.json().get("error").asText()).contains("concurrent writes");
        assertThat(response.raw().headers().firstValue("retry-after").orElseThrow())
            .matches("[1-9][0-9]*");
        assertThat(versions.get("versions")).as("a refused commit wrote nothing").isEmpty();
        shed++;
      }
    }
    assertThat(shed).as("a limit of 2 cannot pass 200 requests sent at once").isPositive();
    assertThat(shed).isLessThan(NOISY);
    for (Api.Response answer : quietAnswers) {
      assertThat(answer.status()).as("the quiet tenant: %s", answer.text()).isEqualTo(200);
    }
    assertThat(readyWhileLoaded).as("shedding does not make the gateway unready").isEqualTo(200);

    Metrics after = Metrics.scrape(gw);
    assertThat(after.since(before, Metrics.createOutcome("shed"))).isEqualTo(shed);
    assertThat(after.since(before, Metrics.createOutcome("error"))).isZero();
    assertThat(
            after.since(
                before,
                "lvg_http_server_requests_seconds_count{method=\"POST\","
                    + "route=\"/v1/table/:id/version/create\",status=\"503\"}"))
        .as("refusals at admission are timed under their route")
        .isEqualTo(shed);
    assertThat(after.value("lvg_admission_limit{class=\"writes\"}")).isBetween(1.0, 2.0);
    assertThat(after.text()).contains("lvg_admission_total{class=\"writes\",outcome=\"shed\"");
    assertThat(after.text())
        .contains("lvg_admission_total{class=\"writes\",outcome=\"admitted\",reason=\"free_slot\"");
  }

  @Test
  void madeUpCredentialsShareOneRequesterAndTheQuietTenantStillCommits() throws Exception {
    Api quiet = tenantWithTables("beside-made-up-credentials", 10);
    Metrics before = Metrics.scrape(gw);

    List<CompletableFuture<Api.Response>> flood = new ArrayList<>();
    for (int i = 0; i < NOISY; i++) {
      String madeUp = "made-up-" + UUID.randomUUID();
      HttpRequest.Builder request = gw.api(null).request(create(i), Api.createBody(1, "m/" + i));
      if (i % 2 == 0) {
        request.header("x-api-key", madeUp);
      } else {
        request.header("Authorization", "Bearer " + madeUp);
      }
      flood.add(Api.sendAsync(request.build()));
    }
    for (int i = 0; i < 10; i++) {
      Api.Response answer = quiet.post(create(i), Api.createBody(1, "q/" + i));
      assertThat(answer.status()).as("the quiet tenant: %s", answer.text()).isEqualTo(200);
    }
    int refused = 0;
    for (CompletableFuture<Api.Response> answer : flood) {
      Api.Response response = answer.join();
      if (response.status() == 503) {
        response.assertError(503, 17);
        refused++;
      } else {
        response.assertError(401, 16);
      }
    }

    Metrics after = Metrics.scrape(gw);
    assertThat(after.admissionsSince(before, Authentication.UNRESOLVED))
        .as("every made-up credential's request was decided as the one unresolved requester")
        .isEqualTo(NOISY);
    assertThat(refused).as("a limit of 2 cannot pass 200 requests sent at once").isPositive();
    assertThat(after.text())
        .doesNotContain("requester=\"key:")
        .doesNotContain("requester=\"token:");
  }
}
