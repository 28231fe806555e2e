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

class VersionDeleteIT {
  private Api api;

  @BeforeEach
  void tenVersions() {
    TestGateway gw = TestGateway.shared();
    api = gw.api(gw.newTenant("delete"));
    api.declare("ns", "t");
    for (int v = 1; v <= 10; v++) {
      api.post("/v1/table/ns%24t/version/create", createBody(v, "t/" + v)).assertOk();
    }
  }

  private List<Long> remaining() {
    List<Long> result = new ArrayList<>();
    api.post("/v1/table/ns%24t/version/list", null)
        .assertOk()
        .get("versions")
        .forEach(v -> result.add(v.get("version").longValue()));
    return result;
  }

  private JsonNode delete(String ranges) {
    return api.post("/v1/table/ns%24t/version/delete", "{\"ranges\":" + ranges + "}").assertOk();
  }

  @Test
  void rangesAreStartInclusiveEndExclusiveAndOverlappingRangesDeleteOnce() {
    JsonNode deleted =
        delete("[{\"start_version\":2,\"end_version\":4},{\"start_version\":8,\"end_version\":9}]");
    assertThat(deleted.get("deleted_count").longValue()).isEqualTo(3);
    assertThat(remaining()).containsExactly(1L, 4L, 5L, 6L, 7L, 9L, 10L);
    assertThat(delete("[{\"start_version\":2,\"end_version\":4}]").get("deleted_count").longValue())
        .isZero();
    assertThat(
            delete(
                    "[{\"start_version\":3,\"end_version\":6},{\"start_version\":5,\"end_version\":7}]")
                .get("deleted_count")
                .longValue())
        .isEqualTo(3);
    assertThat(remaining()).containsExactly(1L, 7L, 9L, 10L);
  }

  @Test
  void minusOneReachesThroughTheLatestAndZeroToMinusOneDeletesAll() {
    assertThat(
            delete("[{\"start_version\":9,\"end_version\":-1}]").get("deleted_count").longValue())
        .isEqualTo(2);
    assertThat(remaining()).containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L);
    assertThat(
            delete("[{\"start_version\":0,\"end_version\":-1}]").get("deleted_count").longValue())
        .isEqualTo(8);
    assertThat(remaining()).isEmpty();
    assertThat(
            delete("[{\"start_version\":0,\"end_version\":-1}]").get("deleted_count").longValue())
        .isZero();
    api.post("/v1/table/ns%24t/version/describe", "{\"version\":3}").assertError(404, 11);
  }

  @Test
  void theChainContinuesFromWhatRemains() {
    delete("[{\"start_version\":10,\"end_version\":-1}]");
    api.post("/v1/table/ns%24t/version/create", createBody(11, "t/11")).assertError(409, 14);
    api.post("/v1/table/ns%24t/version/create", createBody(10, "t/10-again")).assertOk();
  }

  @Test
  void badRequestsAndUnknownTables() {
    String path = "/v1/table/ns%24t/version/delete";
    api.post(path, "{}").assertError(400, 13);
    api.post(path, null).assertError(400, 13);
    assertThat(api.post(path, "{\"ranges\":[]}").assertOk().get("deleted_count").asInt()).isZero();
    api.post("/v1/table/ns%24nope/version/delete", "{\"ranges\":[]}").assertError(404, 4);
    api.post("/v1/table/nope%24t/version/delete", "{\"ranges\":[]}").assertError(404, 1);
    api.post(path, "{\"ranges\":[{\"start_version\":-2,\"end_version\":3}]}").assertError(400, 13);
    api.post(path, "{\"ranges\":[{\"start_version\":5,\"end_version\":3}]}").assertError(400, 13);
    api.post(path, "{\"ranges\":[{\"start_version\":1}]}").assertError(400, 13);
    api.post(path, "{\"ranges\":[{\"start_version\":\"1\",\"end_version\":3}]}")
        .assertError(400, 13);
    api.post(
            "/v1/table/ns%24nope/version/delete",
            "{\"ranges\":[{\"start_version\":0,\"end_version\":-1}]}")
        .assertError(404, 4);
    api.post(path, "{\"branch\":\"b\",\"ranges\":[{\"start_version\":0,\"end_version\":-1}]}")
        .assertError(404, 22);
    assertThat(remaining()).hasSize(10);
  }
}
