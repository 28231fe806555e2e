package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Rights below the tenant through the real API: two teams in one tenant, each key scoped by a role
 * to its namespace (and one shared table it may read). What a key may not see is answered as
 * missing (404), what it sees but may not change is 403; lists hold only what it may read, pages
 * full; the change feed carries only its objects' events; a revoked grant is honoured by another
 * gateway within a second; every change is audited.
 */
class GrantsIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();
  private static TestGateway one;
  private static TestGateway two;

  @BeforeAll
  static void start() {
    Map<String, String> settings =
        Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl(), "LVG_ADMIN_API_KEY", ADMIN_KEY);
    one = TestGateway.dedicated(settings);
    two = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() {
    one.gateway.close();
    two.gateway.close();
  }

  private static Api.Response admin(String method, String path, String body) {
    return Api.call(one.baseUrl, method, path, body, ADMIN_KEY);
  }

  /** A tenant with namespaces team_a, team_b and shared (tables prices and salaries). */
  private record Teams(String tenant, Api owner) {}

  private static Teams teams() {
    String tenant = "teams-" + UUID.randomUUID().toString().substring(0, 8);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + tenant + "\"}").assertOk();
    Api owner =
        one.api(
            admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[\"write\"]}")
                .assertOk()
                .get("api_key")
                .asText());
    for (String namespace : List.of("team_a", "team_b", "shared")) {
      owner.post("/v1/namespace/" + namespace + "/create", "{}").assertOk();
    }
    for (String table : List.of("shared%24prices", "shared%24salaries", "team_b%24plans")) {
      owner.post("/v1/table/" + table + "/declare", "{}").assertOk();
    }
    grant(tenant, "role:team-a", "{\"right\":\"manage\",\"namespace\":[\"team_a\"]}");
    grant(tenant, "role:team-a", "{\"right\":\"read\",\"table\":[\"shared\",\"prices\"]}");
    return new Teams(tenant, owner);
  }

  private static JsonNode grant(String tenant, String grantee, String grant) {
    String body = "{\"grantee\":\"" + grantee + "\"," + grant.substring(1);
    return admin("POST", "/admin/v1/tenants/" + tenant + "/grants", body).assertOk();
  }

  private static Api teamKey(TestGateway gateway, String tenant, String role) {
    return gateway.api(
        admin(
                "POST",
                "/admin/v1/tenants/" + tenant + "/keys",
                "{\"roles\":[\"" + role + "\"],\"description\":\"" + role + "\"}")
            .assertOk()
            .get("api_key")
            .asText());
  }

  private static List<String> strings(JsonNode array) {
    List<String> values = new ArrayList<>();
    array.forEach(value -> values.add(value.asText()));
    return values;
  }

  @Test
  void aTeamKeyWorksInItsNamespaceAndSeesNothingElse() {
    Teams teams = teams();
    Api a = teamKey(one, teams.tenant(), "team-a");
    a.post("/v1/namespace/team_a%24raw/create", "{}").assertOk();
    a.post("/v1/table/team_a%24raw%24events/declare", "{}").assertOk();
    a.post("/v1/table/team_a%24raw%24events/version/create", Api.createBody(1, "e/1")).assertOk();
    a.post("/v1/table/team_a%24raw%24events/describe", "{}").assertOk();
    a.post("/v1/table/shared%24prices/describe", "{}").assertOk();

    // Outside its grants: as if missing, or 403 where it may see.
    a.post("/v1/table/team_b%24plans/describe", "{}").assertError(404, 1);
    a.post("/v1/namespace/team_b/describe", "{}").assertError(404, 1);
    a.post("/v1/table/shared%24salaries/describe", "{}").assertError(404, 4);
    a.post("/v1/table/shared%24prices/version/create", Api.createBody(1, "p/1"))
        .assertError(403, 15);
    a.post("/v1/table/shared%24prices/drop", "{}").assertError(403, 15);
    a.post("/v1/namespace/team_c/create", "{}").assertError(403, 15);
    a.post("/v1/namespace/team_b%24x/create", "{}").assertError(404, 1);
    a.post("/v1/table/team_b%24t/declare", "{}").assertError(404, 1);
    a.post(
            "/v1/table/team_a%24raw%24events/rename",
            "{\"new_table_name\":\"stolen\",\"new_namespace_id\":[\"team_b\"]}")
        .assertError(404, 1);
    teams.owner().post("/v1/table/team_b%24stolen/describe", "{}").assertError(404, 4);

    // Lists: only what it may read, filtered before the page is cut.
    assertThat(strings(a.get("/v1/namespace/%24/list").assertOk().get("namespaces")))
        .containsExactly("shared", "team_a");
    JsonNode page = a.get("/v1/namespace/shared/table/list?limit=1").assertOk();
    assertThat(strings(page.get("tables"))).containsExactly("prices");
    assertThat(page.has("page_token") && !page.get("page_token").isNull()).isFalse();
    assertThat(strings(a.get("/v1/table").assertOk().get("tables")))
        .containsExactly("shared$prices", "team_a$raw$events");
    assertThat(strings(teams.owner().get("/v1/table").assertOk().get("tables")))
        .contains("shared$salaries", "team_b$plans");

    // Transactions: described only when of a table the key may read.
    teams
        .owner()
        .post("/v1/table/shared%24prices/version/create", Api.createBody(1, "p/1"))
        .assertOk();
    teams
        .owner()
        .post("/v1/table/team_b%24plans/version/create", Api.createBody(1, "b/1"))
        .assertOk();
    Map<String, String> transactions = new java.util.HashMap<>();
    teams
        .owner()
        .post("/v1/events", "{\"page-size\":100}")
        .assertOk()
        .get("events")
        .forEach(
            event -> {
              if (event.path("data").has("transaction_id")) {
                transactions.put(
                    event.path("subject").asText(),
                    event.path("data").path("transaction_id").asText());
              }
            });
    a.post("/v1/transaction/" + transactions.get("shared$prices") + "/describe", "{}").assertOk();
    a.post("/v1/transaction/" + transactions.get("team_b$plans") + "/describe", "{}")
        .assertError(404, 10);
    a.post(
            "/v1/transaction/team_b%24plans%24" + transactions.get("team_b$plans") + "/describe",
            "{}")
        .assertError(404, 1);

    JsonNode caller = a.get("/v1/whoami").assertOk();
    assertThat(strings(caller.get("rights"))).isEmpty();
    assertThat(caller.get("grants")).hasSize(2);
  }

  @Test
  void aBatchWithOneEntryOutsideTheGrantsWritesNothing() {
    Teams teams = teams();
    Api a = teamKey(one, teams.tenant(), "team-a");
    a.post("/v1/table/team_a%24t/declare", "{}").assertOk();
    String entries =
        "{\"entries\":[{\"id\":[\"team_a\",\"t\"],\"version\":1,\"manifest_path\":\"t/1\"},"
            + "{\"id\":[\"shared\",\"prices\"],\"version\":1,\"manifest_path\":\"p/1\"}]}";
    a.post("/v1/table/version/batch-create", entries).assertError(403, 15);
    JsonNode versions =
        teams.owner().post("/v1/table/team_a%24t/version/list", "{}").assertOk().get("versions");
    assertThat(versions).isEmpty();
  }

  @Test
  void theFeedCarriesOnlyTheEventsOfWhatTheKeyMayRead() {
    Teams teams = teams();
    Api a = teamKey(one, teams.tenant(), "team-a");
    teams.owner().post("/v1/table/team_a%24mine/declare", "{}").assertOk();
    for (int version = 1; version <= 3; version++) {
      for (String table : List.of("team_a%24mine", "team_b%24plans", "shared%24prices")) {
        teams
            .owner()
            .post("/v1/table/" + table + "/version/create", Api.createBody(version, "v/" + version))
            .assertOk();
      }
    }
    List<String> subjects = new ArrayList<>();
    String token = "";
    while (true) {
      JsonNode page =
          a.post("/v1/events", "{\"continuation-token\":\"" + token + "\",\"page-size\":2}")
              .assertOk();
      page.get("events").forEach(event -> subjects.add(event.path("subject").asText()));
      if (page.get("continuation-token").asText().equals(token)) {
        break;
      }
      token = page.get("continuation-token").asText();
    }
    assertThat(subjects)
        .containsExactly(
            "team_a",
            "shared$prices",
            "team_a$mine",
            "team_a$mine",
            "shared$prices",
            "team_a$mine",
            "shared$prices",
            "team_a$mine",
            "shared$prices");
    // team_a created, shared$prices declared, team_a$mine declared, then three rounds of versions
    // of mine and prices; nothing of team_b, of salaries, nor of the namespace shared itself.
    assertThat(subjects).doesNotContain("team_b$plans", "shared$salaries", "team_b", "shared");
  }

  @Test
  void aRevokedGrantIsRefusedOnAnotherGatewayWithinASecond() throws Exception {
    Teams teams = teams();
    JsonNode extra =
        grant(teams.tenant(), "role:team-b", "{\"right\":\"read\",\"namespace\":[\"team_b\"]}");
    Api onTwo = teamKey(two, teams.tenant(), "team-b");
    onTwo.post("/v1/table/team_b%24plans/describe", "{}").assertOk();
    admin(
            "DELETE",
            "/admin/v1/tenants/" + teams.tenant() + "/grants/" + extra.get("grant_id").asText(),
            null)
        .assertOk();
    // Its only grant gone, the key may do nothing in the tenant: 403 for everything.
    assertThat(onTwo.statusWithin("/v1/table/team_b%24plans/describe", 403, 1000)).isEqualTo(403);

    // Roles and grants are listed and audited.
    JsonNode roles =
        admin("GET", "/admin/v1/tenants/" + teams.tenant() + "/roles", null).assertOk();
    // Only roles with members are listed: team-b has the key made above, team-a none here.
    assertThat(roles.get("roles")).hasSize(1);
    assertThat(roles.get("roles").get(0).get("role").asText()).isEqualTo("team-b");
    assertThat(roles.get("roles").get(0).get("members").get(0).asText()).startsWith("key:k_");
    JsonNode grants =
        admin("GET", "/admin/v1/tenants/" + teams.tenant() + "/grants?grantee=role:team-a", null)
            .assertOk()
            .get("grants");
    assertThat(grants).hasSize(2);
    List<String> operations = new ArrayList<>();
    admin("GET", "/admin/v1/tenants/" + teams.tenant() + "/audit?limit=100", null)
        .assertOk()
        .get("events")
        .forEach(event -> operations.add(event.get("operation").asText()));
    assertThat(operations).contains("CreateGrant", "DeleteGrant", "IssueKey");
  }

  @Test
  void badGrantsAreRefusedWithTheFieldNamed() {
    Teams teams = teams();
    String path = "/admin/v1/tenants/" + teams.tenant() + "/grants";
    admin("POST", path, "{\"grantee\":\"someone\",\"right\":\"read\"}").assertError(400, 13);
    admin("POST", path, "{\"grantee\":\"role:x\",\"right\":\"admin\"}").assertError(400, 13);
    admin("POST", path, "{\"grantee\":\"role:x\",\"right\":\"read\",\"table\":[]}")
        .assertError(400, 13);
    admin("POST", path, "{\"grantee\":\"role:x\",\"right\":\"read\",\"namespace\":[\"a/b\"]}")
        .assertError(400, 13);
    admin("DELETE", path + "/g_0000", null).assertError(404, 1);
    admin(
            "POST",
            "/admin/v1/tenants/" + teams.tenant() + "/roles/team-a/members",
            "{\"member\":\"role:other\"}")
        .assertError(400, 13);
  }
}
