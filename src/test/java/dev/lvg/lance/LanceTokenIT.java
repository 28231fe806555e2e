package dev.lvg.lance;

import static dev.lvg.lance.LanceData.TABLE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.TestGateway;
import dev.lvg.auth.JwksIssuer;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.namespace.RestNamespace;

/**
 * The real Lance writer (lance-core 7.0.0) authenticated by a scoped bearer token from a JWKS
 * issuer, sent as {@code header.Authorization}: a read-write token creates and appends, a read-only
 * token opens and reads what the other wrote.
 */
class LanceTokenIT {
  private static JwksIssuer issuer;
  private static TestGateway gw;
  private static BufferAllocator allocator;
  private static String tenant;

  @BeforeAll
  static void start() throws Exception {
    issuer = new JwksIssuer();
    Map<String, String> settings = new HashMap<>(issuer.gatewaySettings());
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_MANIFEST_MODE", "finalize");
    gw = TestGateway.dedicated(settings);
    tenant = "lance-jwt-" + UUID.randomUUID().toString().substring(0, 8);
    gw.tenantWithKey(tenant);
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() {
    allocator.close();
    gw.gateway.close();
    issuer.close();
  }

  private static RestNamespace namespace(String scope) throws Exception {
    RestNamespace namespace = new RestNamespace();
    namespace.initialize(
        Map.of(
            "uri",
            gw.baseUrl,
            "header.Authorization",
            "Bearer " + issuer.token(JwksIssuer.claims(tenant, scope))),
        allocator);
    return namespace;
  }

  @Test
  void aReadWriteTokenCommitsAndAReadOnlyTokenReads() throws Exception {
    RestNamespace writer = namespace("lance:read lance:write");
    gw.api(gw.tenantWithKey(tenant)).post("/v1/namespace/ns1/create", "{}").assertOk();
    assertThat(LanceData.write(allocator, writer, WriteParams.WriteMode.CREATE, 0, 3)).isEqualTo(1);
    assertThat(LanceData.write(allocator, writer, WriteParams.WriteMode.APPEND, 3, 2)).isEqualTo(2);
    try (Dataset read =
        Dataset.open()
            .allocator(allocator)
            .namespaceClient(namespace("lance:read"))
            .tableId(TABLE)
            .build()) {
      assertThat(read.version()).isEqualTo(2);
      assertThat(read.countRows()).isEqualTo(5);
    }
  }
}
