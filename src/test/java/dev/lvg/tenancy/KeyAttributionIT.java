package dev.lvg.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Admission names whose load a request is before it is authenticated, from what the key last
 * resolved to: once that resolution is too old to authenticate with, the key still counts as its
 * tenant, not as a tenant of its own.
 */
class KeyAttributionIT {
  @Test
  void aKeyStaysItsTenantsLoadAfterItsResolutionAgesOut() throws Exception {
    TestGateway gateway = TestGateway.shared();
    TenantDirectory tenants = gateway.gateway.tenants();
    String name = "attributed-" + UUID.randomUUID().toString().substring(0, 8);
    String key = gateway.tenantWithKey(name);
    String hash = KeyDigest.hash(key);
    assertThat(tenants.lastResolvedTenant(hash)).as("never resolved yet").isNull();

    // A key that expires soon is remembered only until it expires.
    try (Connection db = gateway.jdbc();
        PreparedStatement expire =
            db.prepareStatement(
                "UPDATE api_keys SET expires_at = now() + interval '2 seconds'"
                    + " WHERE key_hash = ?")) {
      expire.setString(1, hash);
      assertThat(expire.executeUpdate()).isEqualTo(1);
    }
    Principal principal =
        tenants
            .authenticate(key)
            .toCompletionStage()
            .toCompletableFuture()
            .get(10, TimeUnit.SECONDS);
    assertThat(principal).isNotNull();
    assertThat(principal.tenant().name()).isEqualTo(name);
    assertThat(tenants.lastResolvedTenant(hash)).isEqualTo(principal.tenant());

    Thread.sleep(2_500);
    assertThat(tenants.recentlyAuthenticated(hash)).as("too old to authenticate with").isNull();
    assertThat(tenants.lastResolvedTenant(hash)).isEqualTo(principal.tenant());
    assertThat(
            tenants
                .authenticate(key)
                .toCompletionStage()
                .toCompletableFuture()
                .get(10, TimeUnit.SECONDS))
        .as("and the expired key itself is refused")
        .isNull();
  }
}
