package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.lvg.http.AdminContract;
import dev.lvg.http.SpecOperations;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Requests are checked against the contract of their operation before it runs (400 code 13 naming
 * what does not fit), and both served OpenAPI documents are valid OpenAPI 3.1 that vertx-openapi
 * accepts as contracts.
 */
class ContractValidationIT {
  private static final String ADMIN_KEY = "contract-admin-key";

  private static String error(Api.Response answer) {
    answer.assertError(400, 13);
    return answer.json().get("error").asText();
  }

  @Test
  void aBodyOrParameterThatDoesNotFitItsSchemaIsRefusedNamingTheField() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("contract"));
    api.declare("cv", "t");

    assertThat(error(api.post("/v1/table/cv$t/version/describe", "{\"version\":\"one\"}")))
        .startsWith("field 'version': ")
        .contains("integer");
    assertThat(error(api.post("/v1/table/cv$t/tags/create", "{\"version\":1}")))
        .startsWith("the request body: ")
        .contains("tag");
    assertThat(error(api.post("/v1/table/cv$t/version/describe", "{\"branch\":7}")))
        .startsWith("field 'branch': ")
        .contains("string");
    assertThat(error(api.post("/v1/namespace/cv2/create", "{\"mode\":5}")))
        .startsWith("field 'mode': ");
    assertThat(error(api.post("/v1/table/cv$t/version/list?limit=many", "{}")))
        .isEqualTo("query parameter limit: 'many' is not of type integer");
    assertThat(error(api.post("/v1/table/cv$t/version/list?descending=maybe", "{}")))
        .isEqualTo("query parameter descending: 'maybe' is not of type boolean");
    assertThat(error(api.post("/v1/table/cv$t/version/describe", "{\"version\":")))
        .isEqualTo("the request body is not JSON");

    assertThat(api.post("/v1/namespace/cv2/create", "{\"mode\":null}").assertOk())
        .as("a property set to null counts as left out")
        .isNotNull();
    assertThat(api.post("/v1/namespace/cv3/create", null).assertOk())
        .as("no body counts as {}")
        .isNotNull();

    // version/create, on the commit path, is checked by its own parser, naming the field too.
    assertThat(
            error(
                api.post(
                    "/v1/table/cv$t/version/create",
                    "{\"version\":\"one\",\"manifest_path\":\"m\"}")))
        .contains("version");
  }

  @Test
  void theAdminApiIsCheckedAgainstItsOwnDocument() {
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(), "LVG_ADMIN_API_KEY", ADMIN_KEY));
    try {
      assertThat(
              error(
                  Api.call(
                      gw.baseUrl, "POST", "/admin/v1/tenants", "{\"name\":\"a b\"}", ADMIN_KEY)))
          .startsWith("field 'name': ");
      assertThat(
              error(
                  Api.call(gw.baseUrl, "POST", "/admin/v1/tenants", "{\"nom\":\"x\"}", ADMIN_KEY)))
          .contains("name");
      assertThat(error(Api.call(gw.baseUrl, "GET", "/admin/v1/tenants?limit=0", null, ADMIN_KEY)))
          .startsWith("query parameter limit: ");
      String name = "cv-" + UUID.randomUUID().toString().substring(0, 8);
      Api.call(gw.baseUrl, "POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}", ADMIN_KEY)
          .assertOk();
      assertThat(
              error(
                  Api.call(
                      gw.baseUrl,
                      "POST",
                      "/admin/v1/tenants/" + name + "/keys",
                      "{\"scopes\":[\"admin\"]}",
                      ADMIN_KEY)))
          .startsWith("field 'scopes.0': ");
    } finally {
      gw.gateway.close();
    }
  }

  /**
   * The gateway's own document lists exactly the admin and feed operations the gateway serves: each
   * of its operations reaches its chain (401 without credentials, never 404 or 405).
   */
  @Test
  void theAdminDocumentIsServedAndEveryOperationInItIsServed() throws Exception {
    TestGateway gw = TestGateway.shared();
    String yaml = managementText(gw, "/openapi-admin.yaml");
    assertThat(yaml).isEqualTo(AdminContract.text());
    List<SpecOperations.Operation> operations = AdminContract.all();
    assertThat(operations)
        .extracting(SpecOperations.Operation::id)
        .containsExactlyInAnyOrder(
            "CreateTenant",
            "ListTenants",
            "DeleteTenant",
            "DisableTenant",
            "EnableTenant",
            "IssueKey",
            "ListKeys",
            "RevokeKey",
            "CreateGrant",
            "ListGrants",
            "DeleteGrant",
            "ListRoles",
            "AddRoleMember",
            "RemoveRoleMember",
            "RegisterCertificate",
            "ListCertificates",
            "RemoveCertificate",
            "RevokeCertificate",
            "ListAuditEvents",
            "CreateWebhook",
            "ListWebhooks",
            "DeleteWebhook",
            "RotateWebhookSecret",
            "EnableWebhook",
            "ListWebhookDeadLetters",
            "DescribeAdmission",
            "DescribeSinks",
            "AddSinkTenant",
            "RemoveSinkTenant",
            "DescribeOwnAdmission",
            "DescribeCaller",
            "QueryEvents",
            "StreamEvents");
    for (SpecOperations.Operation op : operations) {
      String path =
          op.path()
              .replace("{tenant}", "some-tenant")
              .replace("{key_id}", "k_1")
              .replace("{webhook_id}", "wh_1")
              .replace("{grant_id}", "g_1")
              .replace("{role}", "readers")
              .replace("{sink}", "nats");
      Api.Response answer = Api.call(gw.baseUrl, op.method(), path, null, null);
      answer.assertError(401, 16);
    }
    assertValidContract(yaml);
  }

  @Test
  void theServedNamespaceDocumentIsAValidContract() throws Exception {
    assertValidContract(managementText(TestGateway.finalizing(), "/openapi.yaml"));
  }

  private static String managementText(TestGateway gw, String path) {
    Api.Response answer =
        Api.send(HttpRequest.newBuilder(URI.create(gw.managementUrl + path)).GET().build());
    assertThat(answer.status()).isEqualTo(200);
    return answer.text();
  }

  /**
   * vertx-openapi validates a contract against the OpenAPI 3.1 schema before it takes it. It takes
   * no {@code text/event-stream} answer (the feed's live tail), so that one media type is read as
   * text for this check; the rest is checked as served.
   */
  private static void assertValidContract(String yaml) throws Exception {
    Map<?, ?> tree =
        new YAMLMapper().readValue(yaml.replace("text/event-stream:", "text/plain:"), Map.class);
    JsonObject document = new JsonObject(new ObjectMapper().writeValueAsString(tree));
    Vertx vertx = Vertx.vertx();
    try {
      OpenAPIContract contract =
          OpenAPIContract.from(vertx, document)
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      assertThat(contract.operations()).isNotEmpty();
    } finally {
      VertxInstances.close(vertx);
    }
  }
}
