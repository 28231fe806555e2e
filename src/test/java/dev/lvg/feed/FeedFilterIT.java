package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The feed's filters are answered through the index of the rows' keys, not by looking at every
 * event a page passes over: the plan of a filtered page, as the gateway's sessions make it (a plan
 * made with the parameters' values, sequential scans priced out), reads that index; and a filtered
 * pull over a long log finds the few events it asks for.
 */
class FeedFilterIT {
  @Test
  void aFilteredPageReadsOnlyItsWindowAndTestsTheRowsKeys() throws Exception {
    TestGateway gw = TestGateway.shared();
    String tenant = "feed-index-" + UUID.randomUUID().toString().substring(0, 8);
    Api api = gw.api(gw.tenantWithKey(tenant));
    api.declare("wanted", "t");
    try (Connection db = gw.jdbc();
        Statement sql = db.createStatement()) {
      // 20,000 events of other objects, one a row as single commits make them, then the wanted
      // table's.
      sql.execute(
          "INSERT INTO audit_events (tenant_id, operation, credential, object, version,"
              + " transaction_id, request_id, context)"
              + " SELECT t.id, 'CreateNamespace', ARRAY['k'], ARRAY['other' || g], ARRAY[NULL::bigint],"
              + " ARRAY[NULL::uuid], ARRAY['r'], ARRAY['{}']"
              + " FROM tenants t CROSS JOIN generate_series(1, 20000) g WHERE t.name = '"
              + tenant
              + "'");
      sql.execute("ANALYZE audit_events");
      api.post("/v1/table/wanted%24t/version/create", Api.createBody(1, "t/1")).assertOk();

      sql.execute("SET enable_seqscan = off");
      sql.execute("SET jit = off");
      sql.execute(
          "PREPARE filtered(bigint, bigint, bigint, text[], text[], int, text[]) AS "
              + FeedLog.page(true, true));
      long id;
      try (ResultSet rows =
          sql.executeQuery("SELECT id FROM tenants WHERE name = '" + tenant + "'")) {
        rows.next();
        id = rows.getLong(1);
      }
      List<String> plan = new ArrayList<>();
      try (ResultSet rows =
          sql.executeQuery(
              "EXPLAIN EXECUTE filtered("
                  + id
                  + ", 0, 30000, ARRAY['op:CreateTableVersion'], ARRAY['in:wanted$t'], 100, NULL)")) {
        while (rows.next()) {
          plan.add(rows.getString(1));
        }
      }
      String read =
          plan.stream()
              .filter(
                  line ->
                      line.contains("Index Cond: ((tenant_id = ")
                          && line.contains("AND (last_position > "))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no index read of the window in " + plan));
      assertThat(read).as("the window's end bounds the index read").contains("last_position <=");
      assertThat(String.join("\n", plan))
          .contains("(feed_keys && ")
          .doesNotContain("unnest($5)")
          .doesNotContain("starts_with");
    }

    // The filtered pull goes on page after page over the window it may scan, and finds the one.
    List<String> subjects = new ArrayList<>();
    String token = "";
    for (int page = 0; page < 10; page++) {
      var answer =
          api.post(
                  "/v1/events",
                  "{\"continuation-token\":\""
                      + token
                      + "\",\"page-size\":100,\"catalog-objects-by-name\":[[\"wanted\"]],"
                      + "\"operation-types\":[\"io.lance.table.version.created\"]}")
              .assertOk();
      answer.get("events").forEach(event -> subjects.add(event.get("subject").asText()));
      String next = answer.get("continuation-token").asText();
      if (next.equals(token)) {
        break;
      }
      token = next;
    }
    assertThat(subjects).containsExactly("wanted$t");
  }
}
