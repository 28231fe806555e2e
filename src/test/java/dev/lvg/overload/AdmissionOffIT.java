package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * {@code LVG_ADMISSION_ENABLED=false}: the gateway starts and serves with no admission limit, and
 * the admission reports answer with no class.
 */
class AdmissionOffIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();

  @Test
  void aGatewayWithAdmissionOffServesAndReportsNoClass() {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL",
                TestGateway.shared().databaseUrl(),
                "LVG_ADMIN_API_KEY",
                ADMIN_KEY,
                "LVG_ADMISSION_ENABLED",
                "false"));
    try {
      String key = gw.newTenant("no-admission");
      Api api = new Api(gw.baseUrl, key);
      api.declare("n", "t");
      assertThat(api.get("/v1/admission").assertOk().get("classes")).isEmpty();
      assertThat(
              Api.call(gw.adminUrl, "GET", "/admin/v1/admission", null, ADMIN_KEY)
                  .assertOk()
                  .get("classes"))
          .isEmpty();
      String metrics = Api.call(gw.managementUrl, "GET", "/metrics", null, null).text();
      assertThat(metrics).doesNotContain("lvg_admission_limit{");
    } finally {
      gw.gateway.close();
    }
  }
}
