package dev.lvg.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.security.KeyPair;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Bearer JWTs validated against a real JWKS endpoint: the tenant comes from the token's claim. */
class BearerTokenIT {
  private static JwksIssuer issuer;
  private static TestGateway gw;
  private static KeyPair signing;
  private static String tenant;
  private static String tenantKey;

  @BeforeAll
  static void start() throws Exception {
    issuer = new JwksIssuer();
    signing = issuer.signing;
    Map<String, String> settings = new HashMap<>(issuer.gatewaySettings());
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    gw = TestGateway.dedicated(settings);
    tenant = "jwt-" + UUID.randomUUID().toString().substring(0, 8);
    tenantKey = gw.tenantWithKey(tenant);
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
    issuer.close();
  }

  private static KeyPair rsa() throws Exception {
    return JwksIssuer.rsa();
  }

  private static void publish(String keyId, KeyPair pair) {
    issuer.publish(keyId, pair);
  }

  private static String token(KeyPair pair, String keyId, Map<String, Object> claims)
      throws Exception {
    return JwksIssuer.token(pair, keyId, claims);
  }

  private static Map<String, Object> claims(String tenantName) {
    return JwksIssuer.claims(tenantName, "openid lance:read lance:write");
  }

  private static Api.Response post(String authorization, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(gw.baseUrl + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      request.header("Authorization", authorization);
    }
    return Api.send(request.build());
  }

  @Test
  void aValidTokenActsForTheTenantInItsClaim() throws Exception {
    String bystander = gw.newTenant("bystander");
    String bearer = "Bearer " + token(signing, "k1", claims(tenant));
    post(bearer, "/v1/namespace/jwt/create", "{}").assertOk();
    post(bearer, "/v1/table/jwt%24t/declare", "{}").assertOk();
    post(bearer, "/v1/table/jwt%24t/version/create", Api.createBody(1, "j/1")).assertOk();
    assertThat(post(bearer, "/v1/table/jwt%24t/version/list", "null").assertOk().get("versions"))
        .hasSize(1);
    String inBody =
        "{\"identity\":{\"auth_token\":\""
            + token(signing, "k1", claims(tenant))
            + "\"},"
            + "\"version\":2,\"manifest_path\":\"j/2\"}";
    post(null, "/v1/table/jwt%24t/version/create", inBody).assertOk();

    JsonNode landed =
        gw.api(tenantKey).post("/v1/table/jwt%24t/version/list", null).assertOk().get("versions");
    assertThat(landed).as("the writes landed in the token's tenant").hasSize(2);
    assertThat(landed.get(1).get("manifest_path").asText()).isEqualTo("j/2");
    gw.api(bystander).post("/v1/table/jwt%24t/version/list", null).assertError(404, 1);
  }

  @Test
  void invalidTokensAre401() throws Exception {
    Map<String, Object> expired = claims(tenant);
    expired.put("exp", System.currentTimeMillis() / 1000 - 600);
    Map<String, Object> otherIssuer = claims(tenant);
    otherIssuer.put("iss", "https://evil.test");
    Map<String, Object> otherAudience = claims(tenant);
    otherAudience.put("aud", "someone-else");
    for (String token :
        List.of(
            token(signing, "k1", expired),
            token(rsa(), "k1", claims(tenant)),
            token(signing, "k1", otherIssuer),
            token(signing, "k1", otherAudience),
            "not.a.jwt",
            "garbage")) {
      post("Bearer " + token, "/v1/namespace/nope/describe", "{}").assertError(401, 16);
    }
    post("Basic dXNlcjpwYXNz", "/v1/namespace/nope/describe", "{}").assertError(401, 16);
    post("Bearer ", "/v1/namespace/nope/describe", "{}").assertError(401, 16);
  }

  @Test
  void aValidTokenWithoutAKnownTenantIs403() throws Exception {
    post("Bearer " + token(signing, "k1", claims(null)), "/v1/namespace/nope/describe", "{}")
        .assertError(403, 15);
    post(
            "Bearer " + token(signing, "k1", claims("no-such-tenant")),
            "/v1/namespace/nope/describe",
            "{}")
        .assertError(403, 15);
  }

  @Test
  void anApiKeyHeaderWinsOverABearerToken() throws Exception {
    String otherKey = gw.newTenant("jwt-other");
    HttpRequest request =
        HttpRequest.newBuilder(URI.create(gw.baseUrl + "/v1/namespace/keyed/create"))
            .header("x-api-key", otherKey)
            .header("Authorization", "Bearer " + token(signing, "k1", claims(tenant)))
            .POST(HttpRequest.BodyPublishers.ofString("{}"))
            .build();
    Api.send(request).assertOk();
    gw.api(otherKey).post("/v1/namespace/keyed/exists", "{}").assertOk();
    post("Bearer " + token(signing, "k1", claims(tenant)), "/v1/namespace/keyed/exists", "{}")
        .assertError(404, 1);
  }

  @Test
  void aRotatedSigningKeyIsPickedUpFromTheJwks() throws Exception {
    KeyPair rotated = rsa();
    String bearer = "Bearer " + token(rotated, "k2", claims(tenant));
    post(bearer, "/v1/namespace/rotated/describe", "{}").assertError(401, 16);
    publish("k2", rotated);
    int status = 0;
    for (int attempt = 0; attempt < 50 && status != 404; attempt++) {
      Thread.sleep(100);
      status = post(bearer, "/v1/namespace/rotated/describe", "{}").status();
    }
    post(bearer, "/v1/namespace/rotated/describe", "{}").assertError(404, 1);
  }

  @Test
  void theScopeClaimDecidesWhatATokenMayDo() throws Exception {
    Map<String, Object> reader = claims(tenant);
    reader.put("scope", "lance:read");
    String read = "Bearer " + token(signing, "k1", reader);
    Map<String, Object> writer = claims(tenant);
    writer.remove("scope");
    writer.put("scp", List.of("lance:write"));
    String write = "Bearer " + token(signing, "k1", writer);
    Map<String, Object> none = claims(tenant);
    none.put("scope", "openid profile");
    String nothing = "Bearer " + token(signing, "k1", none);

    String both = "Bearer " + token(signing, "k1", claims(tenant));
    post(both, "/v1/namespace/scoped/create", "{}").assertOk();
    post(both, "/v1/table/scoped%24t/declare", "{}").assertOk();

    post(read, "/v1/table/scoped%24t/describe", "{}").assertOk();
    post(read, "/v1/table/scoped%24t/version/create", Api.createBody(1, "s/1"))
        .assertError(403, 15);
    post(write, "/v1/table/scoped%24t/version/create", Api.createBody(1, "s/1")).assertOk();
    // Writing includes reading: a writer reads what it commits to.
    post(write, "/v1/table/scoped%24t/version/list", "{}").assertOk();
    post(nothing, "/v1/table/scoped%24t/describe", "{}").assertError(403, 15);
    post(nothing, "/v1/table/scoped%24t/version/create", Api.createBody(2, "s/2"))
        .assertError(403, 15);
  }

  @Test
  void onceVerifiedATokenIsAdmittedAsItsTenant() throws Exception {
    long tenantId;
    try (Connection db = gw.jdbc();
        PreparedStatement find = db.prepareStatement("SELECT id FROM tenants WHERE name = ?")) {
      find.setString(1, tenant);
      ResultSet row = find.executeQuery();
      assertThat(row.next()).isTrue();
      tenantId = row.getLong(1);
    }
    gw.api(tenantKey).declare("admitted", "t");
    Map<String, Object> fresh = claims(tenant);
    fresh.put("jti", UUID.randomUUID().toString());
    String bearer = "Bearer " + token(signing, "k1", fresh);

    Metrics before = Metrics.scrape(gw);
    for (int version = 1; version <= 3; version++) {
      post(bearer, "/v1/table/admitted%24t/version/create", Api.createBody(version, "a/" + version))
          .assertOk();
    }
    Metrics after = Metrics.scrape(gw);
    assertThat(after.admissionsSince(before, Authentication.UNRESOLVED))
        .as("before it is verified, a token is an unresolved credential")
        .isEqualTo(1);
    assertThat(after.admissionsSince(before, "tenant:" + tenantId))
        .as("once verified, its requests are its tenant's")
        .isEqualTo(2);
  }
}
