package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The admin API: tenants and scoped keys, issued on one gateway and honoured, revoked and disabled
 * on another gateway of the same database within a second (PostgreSQL notifications), with 401 for
 * a key that is gone and 403 for a right a key lacks or a tenant that is disabled.
 */
class AdminIT {
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

  private static Api.Response admin(String method, String path, String body, String key) {
    return Api.call(one.baseUrl, method, path, body, key);
  }

  private static String newTenant() {
    String name = "acme-" + UUID.randomUUID().toString().substring(0, 8);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}", ADMIN_KEY).assertOk();
    return name;
  }

  private static JsonNode issue(String tenant, String body) {
    return admin("POST", "/admin/v1/tenants/" + tenant + "/keys", body, ADMIN_KEY).assertOk();
  }

  /** Polls until {@code api} answers {@code status} to a describe, for at most one second. */
  private static long awaitStatus(Api api, int status) throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() - start < 1_000_000_000L) {
      if (api.post("/v1/namespace/n/describe", "{}").status() == status) {
        return (System.nanoTime() - start) / 1_000_000;
      }
      Thread.sleep(20);
    }
    throw new AssertionError("not answered " + status + " within one second");
  }

  @Test
  void tenantsNeedTheAdminKeyAndAreUnique() {
    String name = newTenant();
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}", ADMIN_KEY)
        .assertError(409, 2);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"x\"}", null).assertError(401, 16);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"x\"}", "wrong").assertError(401, 16);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"../x\"}", ADMIN_KEY).assertError(400, 13);
    admin("GET", "/admin/v1/tenants/no-such-tenant-" + UUID.randomUUID() + "/keys", null, ADMIN_KEY)
        .assertError(404, 1);
  }

  @Test
  void aReadKeyReadsAndCannotWrite() {
    String tenant = newTenant();
    JsonNode writer = issue(tenant, "{\"scopes\":[\"read\",\"write\"],\"description\":\"ci\"}");
    JsonNode reader = issue(tenant, "{\"scopes\":[\"read\"]}");
    assertThat(reader.get("scopes")).hasSize(1);
    Api write = one.api(writer.get("api_key").asText());
    Api read = one.api(reader.get("api_key").asText());
    write.declare("n", "t");
    write.post("/v1/table/n%24t/version/create", Api.createBody(1, "n/1")).assertOk();
    read.post("/v1/table/n%24t/describe", "{}").assertOk();
    read.post("/v1/table/n%24t/version/list", "{}").assertOk();
    read.post("/v1/table/n%24t/version/create", Api.createBody(2, "n/2")).assertError(403, 15);
    admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[\"admin\"]}", ADMIN_KEY)
        .assertError(400, 13);
  }

  @Test
  void keysAreListedWithoutTheirSecrets() {
    String tenant = newTenant();
    JsonNode issued = issue(tenant, "{\"scopes\":[\"write\"],\"description\":\"pipeline\"}");
    String secret = issued.get("api_key").asText();
    Api.Response listed = admin("GET", "/admin/v1/tenants/" + tenant + "/keys", null, ADMIN_KEY);
    JsonNode keys = listed.assertOk().get("keys");
    assertThat(keys).hasSize(1);
    assertThat(keys.get(0).get("key_id").asText()).isEqualTo(issued.get("key_id").asText());
    assertThat(keys.get(0).get("description").asText()).isEqualTo("pipeline");
    assertThat(keys.get(0).has("api_key")).isFalse();
    assertThat(listed.text()).doesNotContain(secret);
    admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[\"root\"]}", ADMIN_KEY)
        .assertError(400, 13);
    admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[]}", ADMIN_KEY)
        .assertError(400, 13);
  }

  @Test
  void aRevokedKeyIsRefusedOnEveryGatewayWithinASecond() throws Exception {
    String tenant = newTenant();
    JsonNode issued = issue(tenant, "{}");
    Api onOne = one.api(issued.get("api_key").asText());
    Api onTwo = two.api(issued.get("api_key").asText());
    onOne.post("/v1/namespace/n/create", "{}").assertOk();
    // Both gateways now remember the key.
    onTwo.post("/v1/namespace/n/describe", "{}").assertOk();
    onOne.post("/v1/namespace/n/describe", "{}").assertOk();

    admin(
            "DELETE",
            "/admin/v1/tenants/" + tenant + "/keys/" + issued.get("key_id").asText(),
            null,
            ADMIN_KEY)
        .assertOk();
    awaitStatus(onTwo, 401);
    onTwo.post("/v1/namespace/n/describe", "{}").assertError(401, 16);
    onOne.post("/v1/namespace/n/describe", "{}").assertError(401, 16);
    admin(
            "DELETE",
            "/admin/v1/tenants/" + tenant + "/keys/" + issued.get("key_id").asText(),
            null,
            ADMIN_KEY)
        .assertError(404, 1);
  }

  @Test
  void aDisabledTenantsCredentialsGet403UntilItIsEnabled() throws Exception {
    String tenant = newTenant();
    Api api = two.api(issue(tenant, "{}").get("api_key").asText());
    api.post("/v1/namespace/n/create", "{}").assertOk();
    admin("POST", "/admin/v1/tenants/" + tenant + "/disable", "{}", ADMIN_KEY).assertOk();
    awaitStatus(api, 403);
    api.post("/v1/namespace/n/describe", "{}").assertError(403, 15);
    admin("POST", "/admin/v1/tenants/" + tenant + "/enable", "{}", ADMIN_KEY).assertOk();
    awaitStatus(api, 200);
  }

  @Test
  void anExpiredKeyIsUnknown() throws Exception {
    String tenant = newTenant();
    long expires = System.currentTimeMillis() + 1500;
    JsonNode issued = issue(tenant, "{\"expires_at\":" + expires + "}");
    assertThat(issued.get("expires_at").asLong()).isEqualTo(expires);
    Api api = one.api(issued.get("api_key").asText());
    api.post("/v1/namespace/n/create", "{}").assertOk();
    Thread.sleep(Math.max(0, expires - System.currentTimeMillis()) + 200);
    api.post("/v1/namespace/n/describe", "{}").assertError(401, 16);
    admin(
            "POST",
            "/admin/v1/tenants/" + tenant + "/keys",
            "{\"expires_at\":" + (System.currentTimeMillis() - 1000) + "}",
            ADMIN_KEY)
        .assertError(400, 13);
  }
}
