package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The admin API on a listener of its own (the default): the operator key is taken there, on
 * loopback, and the API port refuses the admin API with 404 code 0 naming where it is.
 */
class AdminListenerIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();

  @Test
  void theAdminApiIsServedOnItsOwnListenerAndRefusedOnTheApiPort() {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_ADMIN_API_KEY", ADMIN_KEY,
                "LVG_ADMIN_LISTENER", "own",
                "LVG_ADMIN_HOST", "127.0.0.1",
                "LVG_ADMIN_PORT", "0"));
    try {
      assertThat(gw.adminUrl).isNotEqualTo(gw.baseUrl);
      String name = "own-" + UUID.randomUUID().toString().substring(0, 8);
      Api.call(gw.adminUrl, "POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}", ADMIN_KEY)
          .assertOk();
      Api.Response refused =
          Api.call(gw.baseUrl, "GET", "/admin/v1/tenants", null, ADMIN_KEY).assertError(404, 0);
      assertThat(refused.json().get("error").asText()).contains("LVG_ADMIN_PORT");
      Api.call(gw.baseUrl, "POST", "/admin/v1/tenants", "{\"name\":\"x\"}", ADMIN_KEY)
          .assertError(404, 0);

      // The tenant API is served on both: an operator on the admin listener needs nothing else.
      String key = gw.newTenant("own-api");
      new Api(gw.baseUrl, key).post("/v1/namespace/a/create", "{}").assertOk();
      new Api(gw.adminUrl, key).post("/v1/namespace/b/create", "{}").assertOk();
    } finally {
      gw.gateway.close();
    }
  }
}
