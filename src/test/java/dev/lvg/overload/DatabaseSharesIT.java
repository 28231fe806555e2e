package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * One tenant's reads cannot hold what another tenant's writes need: reads run on a pool of their
 * own under a short statement timeout, a read that runs past it is that request's answer (not a
 * dependency outage), and a tenant whose reads used their share of the database's time is refused
 * while other tenants' requests run. Reads are made slow here by a lock on the one table only the
 * feed's reads touch.
 */
class DatabaseSharesIT {
  @Test
  void heavyReadsOfOneTenantNeitherStallAnotherTenantsWritesNorCountAsAnOutage() throws Exception {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_DB_POOL_SIZE", "4",
                "LVG_DB_READ_POOL_SIZE", "2",
                "LVG_DB_READ_TIMEOUT_MS", "700",
                "LVG_TENANT_READ_TIME_MS", "100",
                "LVG_TENANT_READ_TIME_BURST_MS", "1000"));
    Api heavy = gw.api(gw.newTenant("heavy-reader"));
    Api writer = gw.api(gw.newTenant("writer"));
    writer.declare("ns", "t");
    try (Connection lock = gw.jdbc()) {
      lock.setAutoCommit(false);
      try (Statement statement = lock.createStatement()) {
        statement.execute("LOCK TABLE feed_epoch IN ACCESS EXCLUSIVE MODE");
      }
      List<CompletableFuture<Api.Response>> pulls = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        pulls.add(CompletableFuture.supplyAsync(() -> heavy.post("/v1/events", "{}")));
      }
      Thread.sleep(200);
      long started = System.nanoTime();
      for (long v = 1; v <= 5; v++) {
        writer.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
      }
      writer.post("/v1/namespace/other/create", "{}").assertOk();
      long writesMillis = (System.nanoTime() - started) / 1_000_000;
      assertThat(writesMillis)
          .as("another tenant's writes beside 20 stalled reads (each stalls 700 ms)")
          .isLessThan(700);

      List<String> answers = new ArrayList<>();
      for (CompletableFuture<Api.Response> pull : pulls) {
        Api.Response response = pull.get(30, TimeUnit.SECONDS);
        response.assertError(503, 17);
        answers.add(response.json().get("error").asText());
      }
      assertThat(answers)
          .as("reads that ran past the reads' timeout")
          .anyMatch(answer -> answer.contains("LVG_DB_READ_TIMEOUT_MS"));
      Api.Response refused = heavy.post("/v1/events", "{}").assertError(503, 17);
      assertThat(refused.json().get("error").asText())
          .as("the tenant's reads used their share of the database's time")
          .contains("LVG_TENANT_READ_TIME_MS");
      assertThat(refused.header("Retry-After")).isNotNull();
      writer.post("/v1/table/ns%24t/version/describe", "{}").assertOk();
      assertThat(Metrics.scrape(gw).value("lvg_dependency_outage"))
          .as("a read that asked too much is not an outage of the database")
          .isZero();
      lock.rollback();
    } finally {
      gw.gateway.close();
    }
  }
}
