package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The audit trail, read through the admin API: one record per change (none for refusals, replays or
 * failed finalizations), with the credential's name, the request id and the caller's context, never
 * a secret; pages that follow a cursor and never pass a change that commits late.
 */
class AuditIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();
  private static TestGateway recording;
  private static TestGateway finalizing;

  @BeforeAll
  static void start() {
    String db = TestGateway.shared().databaseUrl();
    recording = TestGateway.dedicated(Map.of("LVG_DB_URL", db, "LVG_ADMIN_API_KEY", ADMIN_KEY));
    finalizing =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", db, "LVG_ADMIN_API_KEY", ADMIN_KEY, "LVG_MANIFEST_MODE", "finalize"));
  }

  @AfterAll
  static void stop() {
    recording.gateway.close();
    finalizing.gateway.close();
  }

  private static Api.Response admin(TestGateway gw, String method, String path, String body) {
    return Api.call(gw.baseUrl, method, path, body, ADMIN_KEY);
  }

  /** A new tenant and a read-write key of it, both made through the admin API. */
  private record Tenant(String name, String keyId, String secret) {}

  private static Tenant tenant(TestGateway gw) {
    String name = "audit-" + UUID.randomUUID().toString().substring(0, 8);
    admin(gw, "POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}").assertOk();
    JsonNode key =
        admin(
                gw,
                "POST",
                "/admin/v1/tenants/" + name + "/keys",
                "{\"scopes\":[\"read\",\"write\"]}")
            .assertOk();
    return new Tenant(name, key.get("key_id").asText(), key.get("api_key").asText());
  }

  private static JsonNode page(TestGateway gw, String tenant, String query) {
    return admin(gw, "GET", "/admin/v1/tenants/" + tenant + "/audit" + query, null).assertOk();
  }

  /** Every record of the tenant visible now, following the cursor one page at a time. */
  private static List<JsonNode> all(TestGateway gw, String tenant) {
    List<JsonNode> events = new ArrayList<>();
    String after = "";
    while (true) {
      JsonNode page = page(gw, tenant, "?limit=3&after=" + after);
      page.get("events").forEach(events::add);
      if (page.get("events").isEmpty()) {
        return events;
      }
      after = page.get("next").asText();
    }
  }

  /** Creates namespace {@code ns}, declares {@code ns$t} and answers its location. */
  private static Path declareNsT(Api api) {
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    return Path.of(api.post("/v1/table/ns%24t/declare", "{}").assertOk().get("location").asText());
  }

  private static List<String> operations(List<JsonNode> events) {
    return events.stream().map(event -> event.get("operation").asText()).toList();
  }

  @Test
  void everyChangeIsRecordedOnceWithItsCredentialRequestAndContext() {
    Tenant tenant = tenant(recording);
    Api api = recording.api(tenant.secret());
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    Api.Response created =
        Api.send(
            api.request(
                    "/v1/table/ns%24t/version/create",
                    "{\"version\":1,\"manifest_path\":\"t/1\",\"context\":{\"job\":\"nightly\","
                        + "\"header.Authorization\":\"Bearer not-for-the-trail\"}}")
                .header("x-request-id", "commit-one")
                .header("x-lance-ctx-trace_id", "abc123")
                .header("x-lance-ctx-api_key", "also-not-for-the-trail")
                .build());
    created.assertOk();
    api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
    api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/other")).assertError(409, 14);
    api.post("/v1/table/ns%24t/version/create", Api.createBody(5, "t/5")).assertError(409, 14);
    api.post("/v1/table/ns%24t/version/create", Api.createBody(2, "t/2")).assertOk();
    api.post("/v1/table/ns%24t/branches/create", "{\"name\":\"dev\"}").assertOk();
    api.post(
            "/v1/table/ns%24t/version/delete",
            "{\"ranges\":[{\"start_version\":2,\"end_version\":3}]}")
        .assertOk();
    api.post(
            "/v1/table/version/batch-create",
            "{\"entries\":[{\"id\":[\"ns\",\"t\"],\"version\":2,\"manifest_path\":\"t/2b\"}]}")
        .assertOk();
    api.post(
            "/v1/table/batch-commit",
            "{\"operations\":[{\"declare_table\":{\"id\":[\"ns\",\"u\"]}}]}")
        .assertOk();
    api.post("/v1/table/ns%24u/rename", "{\"new_table_name\":\"v\"}").assertOk();
    api.post("/v1/table/ns%24v/drop", "{}").assertOk();
    api.post("/v1/table/ns%24t/deregister", "{}").assertOk();
    api.post("/v1/namespace/ns/drop", "{}").assertOk();
    api.post("/v1/namespace/ns/drop", "{}").assertError(404, 1);

    List<JsonNode> events = all(recording, tenant.name());
    assertThat(operations(events))
        .containsExactly(
            "CreateTenant",
            "IssueKey",
            "CreateNamespace",
            "DeclareTable",
            "CreateTableVersion",
            "CreateTableVersion",
            "CreateTableBranch",
            "BatchDeleteTableVersions",
            "CreateTableVersion",
            "BatchCreateTableVersions",
            "DeclareTable",
            "BatchCommitTables",
            "RenameTable",
            "DropTable",
            "DeregisterTable",
            "DropNamespace");
    assertThat(events.get(0).get("credential").asText()).isEqualTo("operator");
    assertThat(events.get(1).get("object").asText()).isEqualTo(tenant.keyId());
    JsonNode commit = events.get(4);
    assertThat(commit.get("credential").asText()).isEqualTo(tenant.keyId());
    assertThat(commit.get("object").asText()).isEqualTo("ns$t");
    assertThat(commit.get("version").longValue()).isEqualTo(1);
    assertThat(commit.get("request_id").asText()).isEqualTo("commit-one");
    assertThat(commit.get("context").get("trace_id").asText()).isEqualTo("abc123");
    assertThat(commit.get("context").get("job").asText()).isEqualTo("nightly");
    assertThat(commit.get("context")).hasSize(2);
    assertThat(commit.get("transaction_id").asText())
        .isEqualTo(created.assertOk().get("transaction_id").asText());
    assertThat(events.get(5).get("version").longValue()).isEqualTo(2);
    assertThat(events.get(8).get("version").longValue()).isEqualTo(2);
    assertThat(events.get(12).get("object").asText()).isEqualTo("ns$u");
    for (JsonNode event : events) {
      assertThat(event.get("tenant").asText()).isEqualTo(tenant.name());
      assertThat(event.get("at").longValue()).isPositive();
      assertThat(event.get("request_id").asText()).isNotBlank();
    }
    String trail = page(recording, tenant.name(), "?limit=1000").toString();
    assertThat(trail)
        .doesNotContain(tenant.secret())
        .doesNotContain(ADMIN_KEY)
        .doesNotContain("not-for-the-trail");
  }

  @Test
  void noCredentialReachesTheTrailWhateverNameOrPlaceItIsSentUnder() {
    Tenant tenant = tenant(recording);
    Api api = recording.api(tenant.secret());
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    String key = tenant.secret();
    Api.Response created =
        Api.send(
            api.request(
                    "/v1/table/ns%24t/version/create",
                    "{\"version\":1,\"manifest_path\":\"t/1\",\"context\":{"
                        + "\"auth\":\"k1-"
                        + key
                        + "\",\"bearer\":\"k2\",\"jwt\":\"k3\",\"pwd\":\"k4\","
                        + "\"passPhrase\":\"k5\",\"ACCESS-KEY\":\"k6\",\"kept\":\"plain\","
                        + "\"note\":\""
                        + key
                        + "\",\"wrapped\":\"curl -H x-api-key:"
                        + key
                        + " now\",\"ops\":\""
                        + ADMIN_KEY
                        + "\"}}")
                .header("x-request-id", key)
                .header("x-lance-ctx-auth", "k7")
                .header("x-lance-ctx-Access_Key", "k8")
                .header("x-lance-ctx-header", key)
                .build());
    created.assertOk();
    assertThat(created.header("x-request-id")).isNotEqualTo(key).isNotBlank();
    String requestId = created.header("x-request-id");

    JsonNode commit =
        all(recording, tenant.name()).stream()
            .filter(event -> event.get("operation").asText().equals("CreateTableVersion"))
            .findFirst()
            .orElseThrow();
    assertThat(commit.get("request_id").asText()).isEqualTo(requestId);
    JsonNode context = commit.get("context");
    assertThat(context.get("kept").asText()).isEqualTo("plain");
    assertThat(context.get("note").asText()).isEqualTo("[redacted]");
    assertThat(context.get("wrapped").asText()).isEqualTo("curl -H x-api-key:[redacted] now");
    assertThat(context.get("ops").asText()).isEqualTo("[redacted]");
    assertThat(context.get("header").asText()).isEqualTo("[redacted]");
    assertThat(context).hasSize(5);
    String trail = page(recording, tenant.name(), "?limit=1000").toString();
    assertThat(trail).doesNotContain(key).doesNotContain(ADMIN_KEY);
    for (String hidden : List.of("k1-", "\"k2\"", "\"k3\"", "\"k4\"", "k5", "k6", "k7", "k8")) {
      assertThat(trail).doesNotContain(hidden);
    }
  }

  @Test
  void aNamespaceCreateThatFindsTheNamespaceRecordsNothing() {
    Tenant tenant = tenant(recording);
    Api api = recording.api(tenant.secret());
    api.post("/v1/namespace/ns/create", "{\"properties\":{\"owner\":\"a\"}}").assertOk();
    JsonNode found =
        api.post(
                "/v1/namespace/ns/create",
                "{\"mode\":\"ExistOk\",\"properties\":{\"owner\":\"b\"}}")
            .assertOk();
    assertThat(found.get("properties").get("owner").asText()).isEqualTo("a");
    api.post("/v1/namespace/ns/create", "{}").assertError(409, 2);
    api.post("/v1/namespace/ns/create", "{\"mode\":\"Overwrite\",\"properties\":{\"owner\":\"c\"}}")
        .assertOk();
    api.post("/v1/namespace/other/create", "{\"mode\":\"ExistOk\"}").assertOk();

    assertThat(operations(all(recording, tenant.name())))
        .containsExactly(
            "CreateTenant", "IssueKey", "CreateNamespace", "CreateNamespace", "CreateNamespace");
  }

  @Test
  void concurrentCreatesRecordEachVersionOnceWhateverRacesThem() {
    Tenant tenant = tenant(recording);
    Api api = recording.api(tenant.secret());
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    for (int t = 0; t < 4; t++) {
      api.post("/v1/table/ns%24t" + t + "/declare", "{}").assertOk();
    }
    for (int version = 1; version <= 10; version++) {
      List<CompletableFuture<Api.Response>> racers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        for (int copy = 0; copy < 3; copy++) {
          racers.add(
              api.postAsync(
                  "/v1/table/ns%24t" + t + "/version/create",
                  Api.createBody(version, "t" + t + "/" + version)));
        }
        racers.add(
            api.postAsync(
                "/v1/table/ns%24t" + t + "/version/create",
                Api.createBody(version, "t" + t + "/rival-" + version)));
      }
      racers.forEach(racer -> assertThat(racer.join().status()).isIn(200, 409));
    }
    List<JsonNode> creates =
        all(recording, tenant.name()).stream()
            .filter(event -> event.get("operation").asText().equals("CreateTableVersion"))
            .toList();
    Set<String> versions = new HashSet<>();
    creates.forEach(
        event -> versions.add(event.get("object").asText() + "@" + event.get("version").asLong()));
    assertThat(creates).hasSize(40);
    assertThat(versions).hasSize(40);
  }

  @Test
  void finalizeRecordsOnlyTheVersionsItFinalized() throws Exception {
    Tenant tenant = tenant(finalizing);
    Api api = finalizing.api(tenant.secret());
    Path table = declareNsT(api);
    Files.createDirectories(table.resolve("_versions"));
    String missing = table.resolve("_versions/1.manifest-never").toString().substring(1);
    api.post(
            "/v1/table/ns%24t/version/create",
            "{\"version\":1,\"manifest_path\":\"" + missing + "\",\"naming_scheme\":\"V1\"}")
        .assertError(400, 13);
    api.commitStaged("ns", "t", table, 1);
    List<JsonNode> creates =
        all(finalizing, tenant.name()).stream()
            .filter(event -> event.get("operation").asText().equals("CreateTableVersion"))
            .toList();
    assertThat(creates).hasSize(1);
    assertThat(creates.get(0).get("version").longValue()).isEqualTo(1);
    assertThat(creates.get(0).get("credential").asText()).isEqualTo(tenant.keyId());
  }

  @Test
  void tagChangesAreRecordedWithTheirTableVersionAndTransaction() throws Exception {
    Tenant tenant = tenant(finalizing);
    Api api = finalizing.api(tenant.secret());
    Path table = declareNsT(api);
    api.commitStaged("ns", "t", table, 1);
    api.commitStaged("ns", "t", table, 2);
    String created =
        api.post("/v1/table/ns%24t/tags/create", "{\"tag\":\"release\",\"version\":1}")
            .assertOk()
            .get("transaction_id")
            .asText();
    api.post("/v1/table/ns%24t/tags/create", "{\"tag\":\"release\",\"version\":2}")
        .assertError(409, 9);
    String updated =
        api.post("/v1/table/ns%24t/tags/update", "{\"tag\":\"release\",\"version\":2}")
            .assertOk()
            .get("transaction_id")
            .asText();
    String deleted =
        api.post("/v1/table/ns%24t/tags/delete", "{\"tag\":\"release\"}")
            .assertOk()
            .get("transaction_id")
            .asText();

    List<JsonNode> tags =
        all(finalizing, tenant.name()).stream()
            .filter(event -> event.get("operation").asText().endsWith("TableTag"))
            .toList();
    assertThat(operations(tags))
        .containsExactly("CreateTableTag", "UpdateTableTag", "DeleteTableTag");
    assertThat(tags).allMatch(event -> event.get("object").asText().equals("ns$t"));
    assertThat(tags).allMatch(event -> event.get("credential").asText().equals(tenant.keyId()));
    assertThat(tags.get(0).get("version").longValue()).isEqualTo(1);
    assertThat(tags.get(1).get("version").longValue()).isEqualTo(2);
    assertThat(tags.get(2).has("version")).isFalse();
    assertThat(tags)
        .extracting(event -> event.get("transaction_id").asText())
        .containsExactly(created, updated, deleted);
  }

  @Test
  void aCursorNeverPassesAChangeThatCommitsLate() throws Exception {
    Tenant tenant = tenant(recording);
    Api api = recording.api(tenant.secret());
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    String before = page(recording, tenant.name(), "?limit=1000").get("next").asText();
    try (Connection slow = recording.jdbc()) {
      slow.setAutoCommit(false);
      try (PreparedStatement insert =
          slow.prepareStatement(
              "INSERT INTO audit_events (tenant_id, operation, credential, object, version,"
                  + " transaction_id, request_id, context) SELECT id, 'SlowChange',"
                  + " '{slow-writer}', '{x}', '{NULL}', '{NULL}', '{NULL}', '{\"{}\"}'"
                  + " FROM tenants WHERE name = ?")) {
        insert.setString(1, tenant.name());
        assertThat(insert.executeUpdate()).isEqualTo(1);
      }
      api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
      JsonNode whileOpen = page(recording, tenant.name(), "?after=" + before);
      assertThat(whileOpen.get("events")).isEmpty();
      assertThat(whileOpen.get("next").asText()).isEqualTo(before);
      slow.commit();
    }
    JsonNode after = page(recording, tenant.name(), "?after=" + before);
    assertThat(operations(List.copyOf(toList(after.get("events")))))
        .containsExactly("SlowChange", "CreateTableVersion");
  }

  @Test
  void theBootstrapTenantAndKeyAreRecordedOnce() {
    String name = "boot-" + UUID.randomUUID().toString().substring(0, 8);
    String key = recording.tenantWithKey(name);
    recording.tenantWithKey(name);
    List<JsonNode> events = all(recording, name);
    assertThat(operations(events)).containsExactly("CreateTenant", "IssueKey", "IssueKey");
    assertThat(events).allMatch(event -> event.get("credential").asText().equals("bootstrap"));
    assertThat(events.toString()).doesNotContain(key);
  }

  @Test
  void badPagesAndStrangersAreRefused() {
    Tenant tenant = tenant(recording);
    String path = "/admin/v1/tenants/" + tenant.name() + "/audit";
    admin(recording, "GET", path + "?limit=0", null).assertError(400, 13);
    admin(recording, "GET", path + "?limit=1001", null).assertError(400, 13);
    admin(recording, "GET", path + "?limit=x", null).assertError(400, 13);
    admin(recording, "GET", path + "?after=nonsense", null).assertError(400, 13);
    admin(recording, "GET", path + "?after=99999999999999999999-1", null).assertError(400, 13);
    admin(recording, "GET", "/admin/v1/tenants/no-such-" + UUID.randomUUID() + "/audit", null)
        .assertError(404, 1);
    Api.send(HttpRequest.newBuilder(URI.create(recording.baseUrl + path)).GET().build())
        .assertError(401, 16);
    recording.api(tenant.secret()).get(path).assertError(401, 16);
  }

  private static List<JsonNode> toList(JsonNode array) {
    List<JsonNode> list = new ArrayList<>();
    array.forEach(list::add);
    return list;
  }
}
