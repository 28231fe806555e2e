package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import dev.lvg.auth.JwksIssuer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Live tails hold their credential only as long as it holds, across gateways: a tail on one gateway
 * ends within a second of its key being revoked, its tenant disabled or deleted through another,
 * and when its bearer token expires, each with an event naming why; and caps per tenant and per
 * credential leave room for every other tenant's tails.
 */
class TailLifecycleIT {
  private static final String ADMIN = "admin-" + UUID.randomUUID();
  private static JwksIssuer issuer;
  private static TestGateway administering;
  private static TestGateway tailing;

  @BeforeAll
  static void start() throws Exception {
    issuer = new JwksIssuer();
    Map<String, String> settings = new HashMap<>();
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_ADMIN_API_KEY", ADMIN);
    administering = TestGateway.dedicated(settings);
    settings.putAll(issuer.gatewaySettings());
    settings.put("LVG_EVENTS_HEARTBEAT_MILLIS", "200");
    settings.put("LVG_EVENTS_MAX_STREAMS", "20");
    settings.put("LVG_EVENTS_MAX_STREAMS_PER_TENANT", "3");
    settings.put("LVG_EVENTS_MAX_STREAMS_PER_KEY", "2");
    tailing = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() {
    tailing.gateway.close();
    administering.gateway.close();
    issuer.close();
  }

  private static Api.Response admin(String method, String path, String body) {
    return Api.call(administering.baseUrl, method, path, body, ADMIN);
  }

  /** A new tenant, through the admin API of the other gateway; answers its name. */
  private static String tenant() {
    String name = "tail-" + UUID.randomUUID().toString().substring(0, 8);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}").assertOk();
    return name;
  }

  /** A new read-write key of {@code tenant}: its id and its secret. */
  private static String[] key(String tenant) {
    JsonNode key =
        admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[\"read\",\"write\"]}")
            .assertOk();
    return new String[] {key.get("key_id").asText(), key.get("api_key").asText()};
  }

  private static Sse tail(String key) throws Exception {
    Sse tail = new Sse(tailing.baseUrl + "/v1/events/stream", key, null, 10_000);
    assertThat(tail.status).isEqualTo(200);
    assertThat(tail.nextComment()).isTrue();
    return tail;
  }

  /**
   * Reads {@code tail} until a named event comes (heartbeats and events pass); answers it and the
   * milliseconds from {@code since} to its arrival.
   */
  private static Ended ended(Sse tail, long since) throws Exception {
    for (Sse.Message message = tail.next(); message != null; message = tail.next()) {
      if (!message.event().equals("message")) {
        return new Ended(message, (System.nanoTime() - since) / 1_000_000);
      }
    }
    throw new AssertionError("the tail ended without naming why");
  }

  private record Ended(Sse.Message message, long afterMillis) {}

  @Test
  void aRevokedKeysTailEndsWithinASecondOnAnotherGatewayAndTheTenantsOtherKeysGoOn()
      throws Exception {
    String tenant = tenant();
    String[] revoked = key(tenant);
    String[] kept = key(tenant);
    try (Sse doomed = tail(revoked[1]);
        Sse staying = tail(kept[1])) {
      admin("DELETE", "/admin/v1/tenants/" + tenant + "/keys/" + revoked[0], null).assertOk();
      long revokedAt = System.nanoTime();
      Ended end = ended(doomed, revokedAt);
      assertThat(end.message().event()).isEqualTo("revoked");
      assertThat(end.message().json().get("continuation-token").asText()).isNotBlank();
      assertThat(end.afterMillis()).as("ms from revocation to the tail's end").isLessThan(1000);
      assertThat(doomed.next()).as("nothing after the end").isNull();

      new Api(tailing.baseUrl, kept[1]).post("/v1/namespace/after/create", "{}").assertOk();
      Sse.Message next = staying.next();
      while (next != null && next.id() == null) {
        next = staying.next();
      }
      assertThat(next).isNotNull();
      assertThat(next.json().get("subject").asText()).isEqualTo("after");
    }
  }

  @Test
  void aDisabledTenantsTailsEndWithinASecond() throws Exception {
    String tenant = tenant();
    try (Sse tail = tail(key(tenant)[1])) {
      admin("POST", "/admin/v1/tenants/" + tenant + "/disable", null).assertOk();
      long at = System.nanoTime();
      Ended end = ended(tail, at);
      assertThat(end.message().event()).isEqualTo("disabled");
      assertThat(end.afterMillis()).isLessThan(1000);
    }
  }

  @Test
  void aDeletedTenantsTailsEndWithinASecond() throws Exception {
    String tenant = tenant();
    try (Sse tail = tail(key(tenant)[1])) {
      admin("DELETE", "/admin/v1/tenants/" + tenant + "?behavior=Cascade", null).assertOk();
      long at = System.nanoTime();
      Ended end = ended(tail, at);
      assertThat(end.message().event()).isEqualTo("deleted");
      assertThat(end.afterMillis()).isLessThan(1000);
    }
  }

  @Test
  void aBearerTokensTailEndsWhenTheTokenExpires() throws Exception {
    String tenant = tenant();
    Map<String, Object> claims = JwksIssuer.claims(tenant, "lance:read");
    long expiresAt = System.currentTimeMillis() / 1000 + 2;
    claims.put("exp", expiresAt);
    String token = issuer.token(claims);
    try (Sse tail =
        new Sse(
            tailing.baseUrl + "/v1/events/stream",
            "Authorization",
            "Bearer " + token,
            null,
            10_000)) {
      assertThat(tail.status).isEqualTo(200);
      Ended end = ended(tail, System.nanoTime());
      assertThat(end.message().event()).isEqualTo("expired");
      assertThat(System.currentTimeMillis())
          .as("the end came at the expiry, within a second")
          .isBetween(expiresAt * 1000, expiresAt * 1000 + 1000);
    }
  }

  @Test
  void capsPerCredentialAndPerTenantLeaveRoomForOthers() throws Exception {
    String tenant = tenant();
    String first = key(tenant)[1];
    String second = key(tenant)[1];
    List<Sse> open = new ArrayList<>();
    try {
      open.add(tail(first));
      open.add(tail(first));
      try (Sse refused = new Sse(tailing.baseUrl + "/v1/events/stream", first, null)) {
        assertThat(refused.status).isEqualTo(503);
        assertThat(refused.errorBody())
            .contains("\"code\":17")
            .contains("LVG_EVENTS_MAX_STREAMS_PER_KEY");
      }
      open.add(tail(second));
      try (Sse refused = new Sse(tailing.baseUrl + "/v1/events/stream", second, null)) {
        assertThat(refused.status).isEqualTo(503);
        assertThat(refused.errorBody()).contains("LVG_EVENTS_MAX_STREAMS_PER_TENANT");
      }
      open.add(tail(key(tenant())[1]));
    } finally {
      open.forEach(Sse::close);
    }
  }
}
