package dev.lvg.version;

import static dev.lvg.Api.createBody;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BranchIT {
  private static final String T = "/v1/table/ns%24t";
  private Api api;

  @BeforeEach
  void threeVersionsOnMain() {
    TestGateway gw = TestGateway.shared();
    api = gw.api(gw.newTenant("branch"));
    api.declare("ns", "t");
    for (int v = 1; v <= 3; v++) {
      api.post(T + "/version/create", createBody(v, "main/" + v)).assertOk();
    }
  }

  private static String onBranch(String branch, long version, String path) {
    return "{\"branch\":\""
        + branch
        + "\",\"version\":"
        + version
        + ",\"manifest_path\":\""
        + path
        + "\"}";
  }

  private List<Long> versions(String branch) {
    List<Long> result = new ArrayList<>();
    api.post(T + "/version/list?branch=" + branch, null)
        .assertOk()
        .get("versions")
        .forEach(v -> result.add(v.get("version").longValue()));
    return result;
  }

  @Test
  void aBranchStartsAtItsParentVersionPlusOneAndKeepsItsOwnChain() {
    api.post(T + "/branches/create", "{\"name\":\"dev\"}").assertOk();
    api.post(T + "/version/create", onBranch("dev", 1, "dev/1")).assertError(409, 14);
    api.post(T + "/version/create", onBranch("dev", 5, "dev/5")).assertError(409, 14);
    api.post(T + "/version/create", onBranch("dev", 4, "dev/4")).assertOk();
    api.post(T + "/version/create", onBranch("dev", 4, "dev/4")).assertOk();
    api.post(T + "/version/create", onBranch("dev", 5, "dev/5")).assertOk();
    api.post(T + "/version/create", createBody(4, "main/4")).assertOk();

    assertThat(versions("dev")).containsExactly(4L, 5L);
    assertThat(versions("main")).containsExactly(1L, 2L, 3L, 4L);
    assertThat(
            api.post(T + "/version/describe", "{\"branch\":\"dev\",\"version\":4}")
                .assertOk()
                .get("version")
                .get("manifest_path")
                .asText())
        .isEqualTo("dev/4");
    assertThat(
            api.post(T + "/version/describe", "{\"version\":4}")
                .assertOk()
                .get("version")
                .get("manifest_path")
                .asText())
        .isEqualTo("main/4");
    assertThat(
            api.post(T + "/version/describe", "{\"branch\":\"dev\"}")
                .assertOk()
                .get("version")
                .get("version")
                .longValue())
        .isEqualTo(5);
    assertThat(
            api.post(T + "/describe", "{\"branch\":\"dev\"}").assertOk().get("version").longValue())
        .isEqualTo(5);
    assertThat(api.post(T + "/describe", "{}").assertOk().get("version").longValue()).isEqualTo(4);
    api.post(T + "/describe", "{\"branch\":\"ghost\"}").assertError(404, 22);
  }

  @Test
  void branchesFromAVersionOfAnotherBranch() {
    api.post(T + "/branches/create", "{\"name\":\"old\",\"from_version\":1}").assertOk();
    api.post(T + "/version/create", onBranch("old", 2, "old/2")).assertOk();
    api.post(
            T + "/branches/create",
            "{\"name\":\"older\",\"from_branch\":\"old\",\"from_version\":2}")
        .assertOk();
    api.post(T + "/version/create", onBranch("older", 3, "older/3")).assertOk();
    api.post(
            T + "/branches/create",
            "{\"name\":\"inherit\",\"from_branch\":\"old\",\"from_version\":1}")
        .assertOk();
    api.post(T + "/version/create", onBranch("inherit", 2, "inherit/2")).assertOk();

    JsonNode listed = api.post(T + "/branches/list", null).assertOk().get("branches");
    assertThat(listed.fieldNames()).toIterable().containsExactly("inherit", "old", "older");
    assertThat(listed.get("old").has("parentBranch")).isFalse();
    assertThat(listed.get("old").get("parentVersion").longValue()).isEqualTo(1);
    assertThat(listed.get("older").get("parentBranch").asText()).isEqualTo("old");
    assertThat(listed.get("older").get("parentVersion").longValue()).isEqualTo(2);
    assertThat(listed.get("older").get("createAt").longValue()).isPositive();
    assertThat(listed.get("older").has("manifestSize")).isTrue();

    JsonNode firstPage = api.post(T + "/branches/list?limit=2", null).assertOk();
    assertThat(firstPage.get("branches").size()).isEqualTo(2);
    JsonNode secondPage =
        api.post(
                T + "/branches/list?limit=2&page_token=" + firstPage.get("page_token").asText(),
                null)
            .assertOk();
    assertThat(secondPage.get("branches").fieldNames()).toIterable().containsExactly("older");
  }

  @Test
  void branchErrors() {
    api.post(T + "/branches/create", "{\"name\":\"dev\"}").assertOk();
    api.post(T + "/branches/create", "{\"name\":\"dev\"}").assertError(409, 23);
    api.post(T + "/branches/create", "{\"name\":\"main\"}").assertError(409, 23);
    api.post(T + "/branches/create", "{}").assertError(400, 13);
    api.post(T + "/branches/create", "{\"name\":\"a/b\"}").assertError(400, 13);
    api.post(T + "/branches/create", "{\"name\":\"x\",\"from_branch\":\"ghost\"}")
        .assertError(404, 22);
    api.post(T + "/branches/create", "{\"name\":\"x\",\"from_version\":99}").assertError(404, 11);
    api.post("/v1/table/ns%24ghost/branches/create", "{\"name\":\"x\"}").assertError(404, 4);
    api.post("/v1/table/ns%24ghost/branches/list", null).assertError(404, 4);
    api.post(T + "/version/create", onBranch("ghost", 4, "g/4")).assertError(404, 22);
    api.post(T + "/version/list?branch=ghost", null).assertError(404, 22);
    api.post(T + "/version/describe", "{\"branch\":\"ghost\"}").assertError(404, 22);
    api.post(T + "/branches/delete", "{\"name\":\"ghost\"}").assertError(404, 22);
    api.post(T + "/branches/delete", "{\"name\":\"main\"}").assertError(400, 13);
    api.post("/v1/table/ns%24empty/declare", "{}").assertOk();
    api.post("/v1/table/ns%24empty/branches/create", "{\"name\":\"x\"}").assertError(404, 11);
  }

  @Test
  void deletingABranchRemovesItsVersionsOnly() {
    api.post(T + "/branches/create", "{\"name\":\"tmp\"}").assertOk();
    api.post(T + "/version/create", onBranch("tmp", 4, "tmp/4")).assertOk();
    api.post(T + "/branches/delete", "{\"name\":\"tmp\"}").assertOk();
    api.post(T + "/version/list?branch=tmp", null).assertError(404, 22);
    assertThat(versions("main")).containsExactly(1L, 2L, 3L);
    api.post(T + "/branches/create", "{\"name\":\"tmp\",\"from_version\":2}").assertOk();
    assertThat(versions("tmp")).isEmpty();
    api.post(T + "/version/create", onBranch("tmp", 3, "tmp/3")).assertOk();
  }
}
