package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A tenant over its rate is told to slow down; another tenant at the same moment is not. */
class TenantRateLimitIT {

  @Test
  void aTenantOverItsRateGets503AndOthersAreUnaffected() throws Exception {
    String vip = "vip-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL",
                TestGateway.shared().databaseUrl(),
                "LVG_TENANT_RATE",
                "2",
                "LVG_TENANT_BURST",
                "5",
                "LVG_TENANT_RATES",
                vip + "=1000:100"));
    try {
      String noisyKey = gw.newTenant("noisy");
      Api noisy = gw.api(noisyKey);
      Api quiet = gw.api(gw.newTenant("quiet"));
      int ok = 0;
      int shed = 0;
      long started = System.nanoTime();
      for (int i = 0; i < 20; i++) {
        Api.Response response = noisy.post("/v1/namespace/n" + i + "/create", "{}");
        if (response.status() == 200) {
          ok++;
        } else {
          response.assertError(503, 17);
          assertThat(response.json().get("title").asText()).isEqualTo("Slow down");
          assertThat(response.raw().headers().firstValue("retry-after")).isPresent();
          shed++;
        }
      }
      double elapsedSeconds = (System.nanoTime() - started) / 1e9;
      int refilled = (int) Math.ceil(2 * elapsedSeconds);
      assertThat(ok)
          .as("the burst of 5 and the tokens refilled in %.1f s", elapsedSeconds)
          .isBetween(5, 5 + refilled);
      assertThat(shed).as("a rate of 2/s cannot pass 20 requests sent this fast").isPositive();
      assertThat(shed).isEqualTo(20 - ok);
      assertThat(quiet.post("/v1/namespace/q/create", "{}").status()).isEqualTo(200);
      Api ownQuota = gw.api(gw.tenantWithKey(vip));
      for (int i = 0; i < 20; i++) {
        assertThat(ownQuota.post("/v1/namespace/v" + i + "/create", "{}").status())
            .as("a tenant with a quota of its own is held to that quota")
            .isEqualTo(200);
      }
      try (var db = gw.jdbc();
          var count =
              db.prepareStatement(
                  """
          SELECT count(*) FROM namespaces n JOIN api_keys k ON k.tenant_id = n.tenant_id WHERE k.key_hash = ?""")) {
        count.setString(1, dev.lvg.tenancy.KeyDigest.hash(noisyKey));
        try (var rows = count.executeQuery()) {
          rows.next();
          assertThat(rows.getLong(1))
              .as("only the requests let through wrote anything")
              .isEqualTo(ok);
        }
      }
    } finally {
      gw.gateway.close();
    }
  }
}
