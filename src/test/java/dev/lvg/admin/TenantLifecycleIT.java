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
 * Tenants as a whole through the admin API: listed in pages in byte order of their names, and
 * deleted (refused while they still hold namespaces or tables unless cascading; with every key
 * refused on another gateway of the same database at once; the name free again afterwards).
 */
class TenantLifecycleIT {
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

  private static void create(String tenant) {
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + tenant + "\"}").assertOk();
  }

  private static String writeKey(String tenant) {
    return admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{}")
        .assertOk()
        .get("api_key")
        .asText();
  }

  @Test
  void tenantsAreListedInPagesInTheOrderOfTheirNames() {
    String prefix = "list-" + UUID.randomUUID().toString().substring(0, 6) + "-";
    List<String> mine =
        List.of(prefix + "B", prefix + "a", prefix + "b-1", prefix + "b.2", prefix + "Z");
    mine.forEach(TenantLifecycleIT::create);
    admin("POST", "/admin/v1/tenants/" + prefix + "b-1/disable", "{}").assertOk();

    List<String> seen = new ArrayList<>();
    String after = null;
    int pages = 0;
    do {
      JsonNode page =
          admin("GET", "/admin/v1/tenants?limit=2" + (after == null ? "" : "&after=" + after), null)
              .assertOk();
      assertThat(page.get("tenants").size()).isBetween(1, 2);
      for (JsonNode tenant : page.get("tenants")) {
        seen.add(tenant.get("name").asText());
        if (tenant.get("name").asText().startsWith(prefix)) {
          assertThat(tenant.get("disabled").asBoolean())
              .isEqualTo(tenant.get("name").asText().equals(prefix + "b-1"));
          assertThat(tenant.get("created_at").asLong()).isPositive();
        }
      }
      after = page.get("next").isNull() ? null : page.get("next").asText();
      pages++;
    } while (after != null && pages < 10_000);
    assertThat(after).isNull();
    assertThat(seen).doesNotHaveDuplicates();
    assertThat(seen).isSortedAccordingTo(String::compareTo);
    assertThat(seen.stream().filter(name -> name.startsWith(prefix)))
        .containsExactly(prefix + "B", prefix + "Z", prefix + "a", prefix + "b-1", prefix + "b.2");

    admin("GET", "/admin/v1/tenants?limit=0", null).assertError(400, 13);
    admin("GET", "/admin/v1/tenants?limit=1001", null).assertError(400, 13);
    Api.call(one.baseUrl, "GET", "/admin/v1/tenants", null, null).assertError(401, 16);
    Api.call(one.baseUrl, "GET", "/admin/v1/tenants", null, writeKey(prefix + "a"))
        .assertError(401, 16);
  }

  @Test
  void aTenantHoldingTablesIsDeletedOnlyByCascadeAndItsKeysStopEverywhereAtOnce() throws Exception {
    String tenant = "gone-" + UUID.randomUUID().toString().substring(0, 8);
    create(tenant);
    String key = writeKey(tenant);
    Api api = one.api(key);
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    api.post(
            "/v1/table/ns%24t/version/create",
            "{\"version\":1,\"manifest_path\":\"ns/t.lance/_versions/1.manifest\"}")
        .assertOk();

    Api.Response refused = admin("DELETE", "/admin/v1/tenants/" + tenant, null);
    refused.assertError(409, 3);
    assertThat(refused.json().get("error").asText())
        .contains("1 namespace(s) and 1 table(s)")
        .contains("behavior=Cascade");
    admin("DELETE", "/admin/v1/tenants/" + tenant + "?behavior=Everything", null)
        .assertError(400, 13);
    api.post("/v1/table/ns%24t/version/list", null).assertOk();

    Api onTwo = two.api(key);
    onTwo.post("/v1/namespace/ns/describe", "{}").assertOk();
    JsonNode deleted =
        admin("DELETE", "/admin/v1/tenants/" + tenant + "?behavior=Cascade", null).assertOk();
    assertThat(deleted.get("deleted").asBoolean()).isTrue();
    JsonNode removed = deleted.get("removed");
    assertThat(removed.get("namespaces").asInt()).isEqualTo(1);
    assertThat(removed.get("lance_tables").asInt()).isEqualTo(1);
    assertThat(removed.get("table_versions").asInt()).isEqualTo(1);
    assertThat(removed.get("api_keys").asInt()).isEqualTo(1);
    assertThat(removed.get("tenants").asInt()).isEqualTo(1);
    assertThat(removed.get("audit_events").asInt()).isPositive();

    assertThat(onTwo.statusWithin("/v1/namespace/ns/describe", 401, 1_000)).isEqualTo(401);
    api.post("/v1/namespace/ns/describe", "{}").assertError(401, 16);
    admin("DELETE", "/admin/v1/tenants/" + tenant, null).assertError(404, 1);
    admin("GET", "/admin/v1/tenants/" + tenant + "/keys", null).assertError(404, 1);

    // The name is free again, for a tenant that starts empty.
    create(tenant);
    Api again = one.api(writeKey(tenant));
    again.post("/v1/namespace/ns/describe", "{}").assertError(404, 1);
    assertThat(again.post("/v1/table/ns%24t/describe", "{}").status()).isEqualTo(404);
    // An empty tenant needs no cascade.
    JsonNode empty = admin("DELETE", "/admin/v1/tenants/" + tenant, null).assertOk();
    assertThat(empty.get("removed").get("api_keys").asInt()).isEqualTo(1);
  }
}
