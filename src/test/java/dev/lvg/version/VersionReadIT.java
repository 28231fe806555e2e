package dev.lvg.version;

import static dev.lvg.Api.createBody;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class VersionReadIT {
  private static TestGateway gw;
  private static Api api;
  private static String key;
  private static final String LIST = "/v1/table/ns%24t/version/list";
  private static final String DESCRIBE = "/v1/table/ns%24t/version/describe";

  @BeforeAll
  static void fiveVersions() {
    gw = TestGateway.shared();
    key = gw.newTenant("read");
    api = gw.api(key);
    api.declare("ns", "t");
    for (int v = 1; v <= 5; v++) {
      api.post("/v1/table/ns%24t/version/create", createBody(v, "t/" + v)).assertOk();
    }
  }

  private static List<Long> versions(JsonNode page) {
    List<Long> result = new ArrayList<>();
    page.get("versions").forEach(v -> result.add(v.get("version").longValue()));
    return result;
  }

  @Test
  void listAcceptsEveryEmptyBodyForm() {
    assertThat(versions(api.post(LIST, null).assertOk())).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(versions(api.post(LIST, "").assertOk())).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(versions(api.post(LIST, "{}").assertOk())).containsExactly(1L, 2L, 3L, 4L, 5L);
    assertThat(versions(api.post(LIST, "null").assertOk())).containsExactly(1L, 2L, 3L, 4L, 5L);
    Api.Response noContentType =
        Api.send(
            HttpRequest.newBuilder(URI.create(gw.baseUrl + LIST))
                .header("x-api-key", key)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build());
    assertThat(versions(noContentType.assertOk())).hasSize(5);
  }

  @Test
  void latestFirstWithLimitOneIsHowWritersFindTheHead() {
    JsonNode head = api.post(LIST + "?descending=true&limit=1", "null").assertOk();
    assertThat(versions(head)).containsExactly(5L);
    assertThat(head.get("versions").get(0).get("manifest_path").asText()).isEqualTo("t/5");
    assertThat(head.has("page_token")).isTrue();
  }

  @Test
  void pagesWalkBothDirections() {
    List<Long> ascending = walk("");
    assertThat(ascending).containsExactly(1L, 2L, 3L, 4L, 5L);
    List<Long> descending = walk("&descending=true");
    assertThat(descending).containsExactly(5L, 4L, 3L, 2L, 1L);
  }

  private List<Long> walk(String extra) {
    List<Long> all = new ArrayList<>();
    String token = null;
    do {
      JsonNode page =
          api.post(LIST + "?limit=2" + extra + (token == null ? "" : "&page_token=" + token), null)
              .assertOk();
      all.addAll(versions(page));
      token = page.has("page_token") ? page.get("page_token").asText() : null;
    } while (token != null);
    return all;
  }

  @Test
  void listRejectsBadParametersAndUnknownTables() {
    api.post(LIST + "?limit=-1", null).assertError(400, 13);
    api.post(LIST + "?descending=maybe", null).assertError(400, 13);
    api.post(LIST + "?page_token=%21%21", null).assertError(400, 13);
    api.post(LIST, "[]").assertError(400, 13);
    api.post("/v1/table/ns%24missing/version/list", null).assertError(404, 4);
    api.post("/v1/table/gone%24missing/version/list", null).assertError(404, 1);
    api.post(LIST + "?branch=feature", null).assertError(404, 22);
  }

  @Test
  void describeFindsAVersionOrTheLatest() {
    assertThat(
            api.post(DESCRIBE, "{\"version\":2}")
                .assertOk()
                .get("version")
                .get("manifest_path")
                .asText())
        .isEqualTo("t/2");
    assertThat(api.post(DESCRIBE, "{}").assertOk().get("version").get("version").longValue())
        .isEqualTo(5);
    assertThat(api.post(DESCRIBE, null).assertOk().get("version").get("version").longValue())
        .isEqualTo(5);
    api.post(DESCRIBE, "{\"version\":99}").assertError(404, 11);
    api.post(DESCRIBE, "{\"version\":\"2\"}").assertError(400, 13);
    api.post("/v1/table/ns%24missing/version/describe", "{\"version\":1}").assertError(404, 4);
    api.post("/v1/table/ns%24t/version/describe", "{\"version\":1,\"branch\":\"b\"}")
        .assertError(404, 22);
  }

  @Test
  void describeOfATableWithoutVersionsIs404Code11() {
    api.post("/v1/table/ns%24empty/declare", "{}").assertOk();
    api.post("/v1/table/ns%24empty/version/describe", "{}").assertError(404, 11);
    assertThat(api.post("/v1/table/ns%24empty/version/list", null).assertOk().get("versions"))
        .isEmpty();
  }

  @Test
  void writerCommitsTwiceInARowAndReadsBack() {
    api.declare("w", "events");
    String create = "/v1/table/w%24events/version/create?delimiter=%24";
    String list = "/v1/table/w%24events/version/list?delimiter=%24&limit=1&descending=true";
    assertThat(api.post(list, "null").assertOk().get("versions")).isEmpty();
    api.post(
            create,
            "{\"id\":[\"w\",\"events\"],\"version\":1,\"manifest_path\":\"w/events.lance/_versions/"
                + "18446744073709551614.manifest-b2e2a200\",\"manifest_size\":367,\"e_tag\":\"20e231\",\"naming_scheme\":\"V2\"}")
        .assertOk();
    assertThat(versions(api.post(list, "null").assertOk())).containsExactly(1L);
    api.post(
            create,
            "{\"id\":[\"w\",\"events\"],\"version\":2,\"manifest_path\":\"w/events.lance/_versions/"
                + "18446744073709551613.manifest-c3\",\"manifest_size\":400,\"naming_scheme\":\"V2\"}")
        .assertOk();
    assertThat(versions(api.post(list, "null").assertOk())).containsExactly(2L);
    assertThat(
            api.post("/v1/table/w%24events/version/describe?delimiter=%24", "{\"version\":1}")
                .assertOk()
                .get("version")
                .get("manifest_size")
                .longValue())
        .isEqualTo(367);
  }
}
