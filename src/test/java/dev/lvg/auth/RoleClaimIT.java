package dev.lvg.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Bearer tokens whose rights come from a role claim ({@code LVG_OAUTH2_ROLE_CLAIM=groups}): each
 * value of the claim is a principal the admin API grants rights to or puts in a role; the token's
 * scopes then give nothing in the tenant, and a token none of whose values is granted anything may
 * do nothing.
 */
class RoleClaimIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();
  private static JwksIssuer issuer;
  private static TestGateway gw;
  private static String tenant;
  private static Api owner;

  @BeforeAll
  static void start() throws Exception {
    issuer = new JwksIssuer();
    Map<String, String> settings = new HashMap<>(issuer.gatewaySettings());
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_OAUTH2_ROLE_CLAIM", "groups");
    settings.put("LVG_ADMIN_API_KEY", ADMIN_KEY);
    gw = TestGateway.dedicated(settings);
    tenant = "groups-" + UUID.randomUUID().toString().substring(0, 8);
    owner = gw.api(gw.tenantWithKey(tenant));
    for (String namespace : List.of("sales", "eng")) {
      owner.post("/v1/namespace/" + namespace + "/create", "{}").assertOk();
    }
    owner.post("/v1/table/sales%24orders/declare", "{}").assertOk();
    admin(
            "POST",
            "/admin/v1/tenants/" + tenant + "/grants",
            "{\"grantee\":\"role:readers\",\"right\":\"read\",\"namespace\":[\"sales\"]}")
        .assertOk();
    admin(
            "POST",
            "/admin/v1/tenants/" + tenant + "/roles/readers/members",
            "{\"member\":\"claim:analysts\"}")
        .assertOk();
    admin(
            "POST",
            "/admin/v1/tenants/" + tenant + "/grants",
            "{\"grantee\":\"claim:engineers\",\"right\":\"manage\",\"namespace\":[\"eng\"]}")
        .assertOk();
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
    issuer.close();
  }

  private static Api.Response admin(String method, String path, String body) {
    return Api.call(gw.baseUrl, method, path, body, ADMIN_KEY);
  }

  private static String bearer(Object groups) throws Exception {
    Map<String, Object> claims = JwksIssuer.claims(tenant, "lance:read lance:write");
    if (groups != null) {
      claims.put("groups", groups);
    }
    return "Bearer " + issuer.token(claims);
  }

  private static Api.Response call(String bearer, String method, String path, String body) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create(gw.baseUrl + path))
            .header("Content-Type", "application/json")
            .header("Authorization", bearer)
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    return Api.send(request.build());
  }

  @Test
  void aGroupInARoleReadsWhatTheRoleMayAndNothingMore() throws Exception {
    String analyst = bearer(List.of("analysts", "unknown-group"));
    call(analyst, "POST", "/v1/table/sales%24orders/describe", "{}").assertOk();
    call(analyst, "POST", "/v1/table/sales%24orders/version/create", Api.createBody(1, "o/1"))
        .assertError(403, 15);
    call(analyst, "POST", "/v1/namespace/eng/describe", "{}").assertError(404, 1);
    List<String> namespaces = new ArrayList<>();
    call(analyst, "GET", "/v1/namespace/%24/list", null)
        .assertOk()
        .get("namespaces")
        .forEach(name -> namespaces.add(name.asText()));
    assertThat(namespaces).containsExactly("sales");
  }

  @Test
  void aGroupGrantedDirectlyManagesItsNamespace() throws Exception {
    String engineer = bearer("engineers");
    call(engineer, "POST", "/v1/table/eng%24models/declare", "{}").assertOk();
    call(engineer, "POST", "/v1/table/eng%24models/version/create", Api.createBody(1, "m/1"))
        .assertOk();
    call(engineer, "POST", "/v1/table/sales%24orders/describe", "{}").assertError(404, 1);
    JsonNode caller = call(engineer, "GET", "/v1/whoami", null).assertOk();
    assertThat(caller.get("rights")).isEmpty();
    assertThat(caller.get("grants").get(0).get("right").asText()).isEqualTo("manage");
  }

  @Test
  void aTokenWithNoGrantedGroupMayDoNothingWhateverItsScopes() throws Exception {
    for (Object groups : new Object[] {null, List.of("nobody"), ""}) {
      String token = bearer(groups);
      call(token, "POST", "/v1/table/sales%24orders/describe", "{}").assertError(403, 15);
      call(token, "GET", "/v1/table", null).assertError(403, 15);
      call(token, "POST", "/v1/namespace/x/create", "{}").assertError(403, 15);
    }
  }
}
