package dev.lvg.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class CatalogIT {
  private TestGateway gw;
  private Api api;

  @BeforeEach
  void tenant() {
    gw = TestGateway.shared();
    api = gw.api(gw.newTenant("catalog"));
  }

  @Test
  void namespaceLifecycle() {
    api.post("/v1/namespace/sales/exists", "{}").assertError(404, 1);
    api.post("/v1/namespace/sales/describe", "{}").assertError(404, 1);
    JsonNode created =
        api.post("/v1/namespace/sales/create", "{\"properties\":{\"owner\":\"ana\"}}").assertOk();
    assertThat(created.get("properties").get("owner").asText()).isEqualTo("ana");
    Api.Response exists = api.post("/v1/namespace/sales/exists", "{}");
    assertThat(exists.status()).isEqualTo(200);
    assertThat(exists.text()).isEmpty();
    assertThat(
            api.post("/v1/namespace/sales/describe", "{\"id\":[\"sales\"]}")
                .assertOk()
                .get("properties")
                .get("owner")
                .asText())
        .isEqualTo("ana");
    api.post("/v1/namespace/sales/create", "{}").assertError(409, 2);
    assertThat(
            api.post("/v1/namespace/sales/create", "{\"mode\":\"exist_ok\"}")
                .assertOk()
                .get("properties")
                .get("owner")
                .asText())
        .isEqualTo("ana");
    assertThat(
            api.post(
                    "/v1/namespace/sales/create",
                    "{\"mode\":\"Overwrite\",\"properties\":{\"owner\":\"bo\"}}")
                .assertOk()
                .get("properties")
                .get("owner")
                .asText())
        .isEqualTo("bo");
    api.post("/v1/namespace/sales/create", "{\"mode\":\"sometimes\"}").assertError(400, 13);
    api.post("/v1/namespace/%24/create", "{}").assertError(409, 2);
    assertThat(api.post("/v1/namespace/%24/describe", "{}").status()).isEqualTo(200);
  }

  @Test
  void nestedNamespacesNeedTheirParent() {
    api.post("/v1/namespace/a%24b/create", "{}").assertError(404, 1);
    api.post("/v1/namespace/a/create", "{}").assertOk();
    api.post("/v1/namespace/a%24b/create", "{}").assertOk();
    api.post("/v1/namespace/a.c/create?delimiter=.", "{}").assertOk();
    assertThat(names(api.get("/v1/namespace/a/list").assertOk(), "namespaces"))
        .containsExactly("b", "c");
    assertThat(names(api.get("/v1/namespace/%24/list").assertOk(), "namespaces"))
        .containsExactly("a");
    api.get("/v1/namespace/zzz/list").assertError(404, 1);
    api.post("/v1/namespace/a/create", "{\"mode\":\"overwrite\"}").assertError(409, 3);
    api.post("/v1/namespace/x.lance/create", "{}").assertError(400, 13);
  }

  @Test
  void listingsPageWithTokens() {
    api.post("/v1/namespace/p/create", "{}").assertOk();
    for (int i = 0; i < 7; i++) {
      api.post("/v1/namespace/p%24n" + i + "/create", "{}").assertOk();
      api.post("/v1/table/p%24t" + i + "/declare", "{}").assertOk();
    }
    assertThat(walk("/v1/namespace/p/list", "namespaces"))
        .containsExactly("n0", "n1", "n2", "n3", "n4", "n5", "n6");
    assertThat(walk("/v1/namespace/p/table/list", "tables"))
        .containsExactly("t0", "t1", "t2", "t3", "t4", "t5", "t6");
    api.get("/v1/namespace/p/list?limit=0").assertError(400, 13);
    api.get("/v1/namespace/p/list?limit=x").assertError(400, 13);
    api.get("/v1/namespace/p/list?page_token=garbage!").assertError(400, 13);
    JsonNode last = api.get("/v1/namespace/p/table/list?limit=7").assertOk();
    assertThat(last.has("page_token")).isFalse();
  }

  private List<String> walk(String path, String field) {
    List<String> all = new ArrayList<>();
    String token = null;
    int pages = 0;
    do {
      JsonNode page =
          api.get(path + "?limit=3" + (token == null ? "" : "&page_token=" + token)).assertOk();
      assertThat(page.get(field).size()).isLessThanOrEqualTo(3);
      all.addAll(names(page, field));
      token = page.has("page_token") ? page.get("page_token").asText() : null;
      pages++;
    } while (token != null && pages < 10);
    assertThat(pages).isEqualTo(3);
    return all;
  }

  private static List<String> names(JsonNode page, String field) {
    List<String> names = new ArrayList<>();
    page.get(field).forEach(node -> names.add(node.asText()));
    return names;
  }

  @Test
  void tableLifecycle() {
    api.post("/v1/table/db%24users/declare", "{}").assertError(404, 1);
    api.post("/v1/namespace/db/create", "{}").assertOk();
    api.post("/v1/table/db%24users/exists", "{}").assertError(404, 4);
    api.post("/v1/table/db%24users/describe", "{}").assertError(404, 4);
    JsonNode declared =
        api.post("/v1/table/db%24users/declare", "{\"properties\":{\"team\":\"core\"}}").assertOk();
    assertThat(declared.get("managed_versioning").booleanValue()).isTrue();
    assertThat(declared.get("location").asText()).endsWith("/db/users.lance");
    assertThat(declared.get("storage_options").isObject()).isTrue();
    api.post("/v1/table/db%24users/declare", "{}").assertError(409, 5);
    assertThat(api.post("/v1/table/db%24users/exists", "{}").status()).isEqualTo(200);

    JsonNode described =
        api.post(
                "/v1/table/db%24users/describe?with_table_uri=true&check_declared=true",
                "{\"context\":{},\"id\":[\"db\",\"users\"],\"with_table_uri\":false,\"check_declared\":false}")
            .assertOk();
    assertThat(described.get("location").asText()).isEqualTo(declared.get("location").asText());
    assertThat(described.get("managed_versioning").booleanValue()).isTrue();
    assertThat(described.get("table").asText()).isEqualTo("users");
    assertThat(described.get("namespace").get(0).asText()).isEqualTo("db");
    assertThat(described.get("is_only_declared").booleanValue()).isTrue();
    assertThat(described.get("table_uri").asText()).isEqualTo(declared.get("location").asText());
    assertThat(described.get("properties").get("team").asText()).isEqualTo("core");

    api.post("/v1/table/db%24users/describe", "{\"version\":1}").assertError(404, 11);
    api.post("/v1/table/db%24users/exists", "{\"version\":1}").assertError(404, 11);
    api.post("/v1/table/db%24users/version/create", Api.createBody(1, "u/1")).assertOk();
    api.post("/v1/table/db%24users/version/create", Api.createBody(2, "u/2")).assertOk();
    assertThat(
            api.post("/v1/table/db%24users/describe", "{}").assertOk().get("version").longValue())
        .isEqualTo(2);
    assertThat(
            api.post("/v1/table/db%24users/describe", "{\"version\":1}")
                .assertOk()
                .get("version")
                .longValue())
        .isEqualTo(1);
    api.post("/v1/table/db%24users/describe", "{\"version\":999}").assertError(404, 11);
    assertThat(api.post("/v1/table/db%24users/exists", "{\"version\":2}").status()).isEqualTo(200);
    api.post("/v1/table/db%24users/exists", "{\"version\":3}").assertError(404, 11);

    JsonNode deregistered = api.post("/v1/table/db%24users/deregister", "{}").assertOk();
    assertThat(deregistered.get("location").asText()).isEqualTo(declared.get("location").asText());
    api.post("/v1/table/db%24users/deregister", "{}").assertError(404, 4);
    api.post("/v1/table/db%24users/version/create", Api.createBody(3, "u/3")).assertError(404, 4);
  }

  @Test
  void registeredLocationsStayInsideTheTenantsPrefix() {
    api.post("/v1/namespace/r/create", "{}").assertOk();
    String prefix =
        api.post("/v1/table/r%24probe/declare", "{}")
            .assertOk()
            .get("location")
            .asText()
            .replace("/r/probe.lance", "");
    JsonNode registered =
        api.post(
                "/v1/table/r%24ext/register",
                "{\"location\":\"" + prefix + "/elsewhere/ext.lance\"}")
            .assertOk();
    assertThat(registered.get("location").asText()).isEqualTo(prefix + "/elsewhere/ext.lance");
    api.post("/v1/table/r%24ext/register", "{\"location\":\"" + prefix + "/x.lance\"}")
        .assertError(409, 5);
    api.post(
            "/v1/table/r%24ext/register",
            "{\"location\":\"" + prefix + "/x.lance\",\"mode\":\"overwrite\"}")
        .assertOk();
    api.post("/v1/table/r%24bad/register", "{\"location\":\"/etc/passwd\"}").assertError(400, 13);
    api.post("/v1/table/r%24bad/register", "{\"location\":\"" + prefix + "/../other/t.lance\"}")
        .assertError(400, 13);
    api.post("/v1/table/r%24bad/register", "{}").assertError(400, 13);
    assertThat(
            api.post("/v1/table/r%24rel/register", "{\"location\":\"imports/rel.lance\"}")
                .assertOk()
                .get("location")
                .asText())
        .isEqualTo(prefix + "/imports/rel.lance");
    api.post("/v1/table/r%24bad/register", "{\"location\":\"../escape.lance\"}")
        .assertError(400, 13);
    api.post("/v1/table/r%24bad/declare", "{\"location\":\"s3://someone-else/t.lance\"}")
        .assertError(400, 13);
    api.post("/v1/table/r%2Fbad/declare", "{}").assertError(400, 13);
  }

  @Test
  void dropNamespaceRestrictsOrCascades() {
    api.post("/v1/namespace/d/create", "{}").assertOk();
    api.post("/v1/namespace/d%24child/create", "{}").assertOk();
    api.post("/v1/table/d%24child%24t/declare", "{}").assertOk();
    api.post("/v1/table/d%24child%24t/version/create", Api.createBody(1, "t/1")).assertOk();
    api.post("/v1/namespace/d/drop", "{}").assertError(409, 3);
    api.post("/v1/namespace/d%24child/drop", "{\"behavior\":\"Restrict\"}").assertError(409, 3);
    api.post("/v1/namespace/d/drop", "{\"behavior\":\"sideways\"}").assertError(400, 13);
    api.post("/v1/namespace/d/drop", "{\"mode\":\"never\"}").assertError(400, 13);
    api.post("/v1/namespace/d/drop", "{\"behavior\":\"Cascade\"}").assertOk();
    api.post("/v1/namespace/d/exists", "{}").assertError(404, 1);
    api.post("/v1/namespace/d%24child/exists", "{}").assertError(404, 1);
    api.post("/v1/table/d%24child%24t/version/list", null).assertError(404, 1);
    api.post("/v1/namespace/d/drop", "{}").assertError(404, 1);
    assertThat(api.post("/v1/namespace/d/drop", "{\"mode\":\"skip\"}").status()).isEqualTo(200);
    api.post("/v1/namespace/%24/drop", "{}").assertError(400, 13);

    api.post("/v1/namespace/e/create", "{\"properties\":{\"k\":\"v\"}}").assertOk();
    assertThat(
            api.post("/v1/namespace/e/drop", "{}").assertOk().get("properties").get("k").asText())
        .isEqualTo("v");
    api.post("/v1/namespace/e/create", "{}").assertOk();
  }

  @Test
  void listAllTablesWalksEveryNamespace() {
    api.post("/v1/namespace/x/create", "{}").assertOk();
    api.post("/v1/namespace/x%24y/create", "{}").assertOk();
    api.post("/v1/table/top/declare", "{}").assertOk();
    api.post("/v1/table/x%24t1/declare", "{}").assertOk();
    api.post("/v1/table/x%24t2/declare", "{}").assertOk();
    api.post("/v1/table/x%24y%24t3/declare", "{}").assertOk();
    api.post("/v1/table/x%24t2/deregister", "{}").assertOk();
    List<String> all = new ArrayList<>();
    String token = null;
    do {
      JsonNode page =
          api.get("/v1/table?limit=2" + (token == null ? "" : "&page_token=" + token)).assertOk();
      all.addAll(names(page, "tables"));
      token = page.has("page_token") ? page.get("page_token").asText() : null;
    } while (token != null);
    assertThat(all).containsExactly("top", "x$t1", "x$y$t3");
    assertThat(names(api.get("/v1/table?delimiter=.").assertOk(), "tables"))
        .containsExactly("top", "x.t1", "x.y.t3");
    assertThat(gw.api(gw.newTenant("empty")).get("/v1/table").assertOk().get("tables")).isEmpty();
  }

  @Test
  void aDeregisteredNameCanBeDeclaredAgainWithAFreshHistory() {
    api.post("/v1/namespace/z/create", "{}").assertOk();
    api.post("/v1/table/z%24t/declare", "{}").assertOk();
    api.post("/v1/table/z%24t/version/create", Api.createBody(1, "old/1")).assertOk();
    api.post("/v1/table/z%24t/deregister", "{}").assertOk();
    api.post("/v1/table/z%24t/version/describe", "{\"version\":1}").assertError(404, 4);
    assertThat(names(api.get("/v1/namespace/z/table/list").assertOk(), "tables")).isEmpty();
    api.post("/v1/table/z%24t/declare", "{}").assertOk();
    assertThat(api.post("/v1/table/z%24t/version/list", null).assertOk().get("versions")).isEmpty();
    api.post("/v1/table/z%24t/version/create", Api.createBody(1, "new/1")).assertOk();
  }
}
