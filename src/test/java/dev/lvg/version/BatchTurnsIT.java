package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A tenant's batches take turns on the gateway: a flood of them never has more than one in the
 * database at a time, so none waits there on its tenant's feed head holding a connection of the
 * write pool (which other tenants' commits need). All of them still succeed, in turn.
 */
class BatchTurnsIT {
  private static final int BATCHES = 12;
  private static final int TABLES = 300;

  @Test
  void aFloodOfOneTenantsBatchesWaitsOutsideTheDatabase() throws Exception {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("turns"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    List<CompletableFuture<Api.Response>> batches = new ArrayList<>();
    for (int b = 0; b < BATCHES; b++) {
      StringBuilder body = new StringBuilder("{\"operations\":[");
      for (int t = 0; t < TABLES; t++) {
        body.append(t == 0 ? "" : ",")
            .append("{\"declare_table\":{\"id\":[\"ns\",\"b")
            .append(b)
            .append("-")
            .append(t)
            .append("\"]}}");
      }
      batches.add(api.postAsync("/v1/table/batch-commit", body.append("]}").toString()));
    }
    int mostWaiting = 0;
    int samples = 0;
    try (Connection db = gw.jdbc();
        Statement query = db.createStatement()) {
      while (!CompletableFuture.allOf(batches.toArray(CompletableFuture[]::new)).isDone()) {
        try (ResultSet waiting =
            query.executeQuery(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                    + " AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO audit_events%'")) {
          waiting.next();
          mostWaiting = Math.max(mostWaiting, waiting.getInt(1));
          samples++;
        }
      }
    }
    for (CompletableFuture<Api.Response> batch : batches) {
      assertThat(batch.get().json().get("results").size()).isEqualTo(TABLES);
    }
    assertThat(samples).as("the flood was sampled while it ran").isGreaterThan(BATCHES);
    assertThat(mostWaiting).as("batches waiting in the database on their feed head").isZero();
  }
}
