package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * The tag operations on a finalizing gateway: tags are the files Lance keeps under {@code
 * _refs/tags/}, each naming a version the catalog has, with the spec's codes.
 */
class TagIT {
  private static final String T = "/v1/table/ns%24t";

  @Test
  void tagsAreTheDatasetsTagFilesWithTheSpecsCodes() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    Api api = gw.api(gw.newTenant("tags"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    Path table = Path.of(api.post(T + "/declare", "{}").assertOk().get("location").asText());
    for (long v = 1; v <= 2; v++) {
      Path staging = table.resolve("_versions/" + v + ".manifest-" + UUID.randomUUID());
      Files.createDirectories(staging.getParent());
      Files.write(staging, ManifestFiles.of("manifest of version " + v));
      api.post(
              T + "/version/create",
              "{\"version\":"
                  + v
                  + ",\"manifest_path\":\""
                  + staging.toString().substring(1)
                  + "\",\"naming_scheme\":\"V1\"}")
          .assertOk();
    }

    assertThat(api.post(T + "/tags/list", "{}").assertOk().get("tags").size()).isZero();
    JsonNode created = api.post(T + "/tags/create", "{\"tag\":\"first\",\"version\":1}").assertOk();
    JsonNode file = new ObjectMapper().readTree(table.resolve("_refs/tags/first.json").toFile());
    assertThat(file.get("version").asLong()).isEqualTo(1);
    assertThat(file.get("manifestSize").asLong())
        .isEqualTo(ManifestFiles.of("manifest of version 1").length);
    assertThat(file.get("branch").isNull()).isTrue();
    assertThat(
            api.post(
                    "/v1/transaction/" + created.get("transaction_id").asText() + "/describe", "{}")
                .assertOk()
                .get("properties")
                .get("operation")
                .asText())
        .isEqualTo("CreateTableTag");

    api.post(T + "/tags/create", "{\"tag\":\"first\",\"version\":2}").assertError(409, 9);
    api.post(T + "/tags/create", "{\"tag\":\"later\",\"version\":9}").assertError(404, 11);
    api.post(T + "/tags/create", "{\"tag\":\"a/b\",\"version\":1}").assertError(400, 13);
    api.post(T + "/tags/create", "{\"tag\":\"x\"}").assertError(400, 13);
    api.post(T + "/tags/create", "{\"tag\":\"x\",\"version\":1,\"branch\":\"nope\"}")
        .assertError(404, 22);
    api.post("/v1/table/ns%24nope/tags/list", "{}").assertError(404, 4);

    // A tag a Lance writer made: a file in the same place.
    Files.writeString(
        table.resolve("_refs/tags/second.json"),
        "{\"branch\":null,\"version\":2,\"createdAt\":\"2026-01-01T00:00:00Z\","
            + "\"updatedAt\":\"2026-01-01T00:00:00Z\",\"manifestSize\":21,\"metadata\":{}}");
    JsonNode page = api.post(T + "/tags/list?limit=1", "{}").assertOk();
    assertThat(page.get("tags").get("first").get("version").asLong()).isEqualTo(1);
    JsonNode rest =
        api.post(T + "/tags/list?page_token=" + page.get("page_token").asText(), "{}").assertOk();
    assertThat(rest.get("tags").get("second").get("manifestSize").asLong()).isEqualTo(21);
    assertThat(rest.has("page_token")).isFalse();

    assertThat(
            api.post(T + "/tags/version", "{\"tag\":\"second\"}")
                .assertOk()
                .get("version")
                .asLong())
        .isEqualTo(2);
    api.post(T + "/tags/version", "{\"tag\":\"missing\"}").assertError(404, 8);
    api.post(T + "/tags/update", "{\"tag\":\"first\",\"version\":2}").assertOk();
    assertThat(
            api.post(T + "/tags/version", "{\"tag\":\"first\"}").assertOk().get("version").asLong())
        .isEqualTo(2);
    api.post(T + "/tags/update", "{\"tag\":\"missing\",\"version\":2}").assertError(404, 8);
    // The version is checked before the tag, as the upstream contract has it.
    api.post(T + "/tags/update", "{\"tag\":\"missing\",\"version\":9}").assertError(404, 11);
    api.post(T + "/tags/update", "{\"tag\":\"first\",\"version\":9}").assertError(404, 11);
    api.post(T + "/tags/delete", "{\"tag\":\"first\"}").assertOk();
    api.post(T + "/tags/delete", "{\"tag\":\"first\"}").assertError(404, 8);
    assertThat(table.resolve("_refs/tags/first.json")).doesNotExist();
    assertThat(api.post(T + "/tags/list", "{}").assertOk().get("tags").size()).isEqualTo(1);
  }

  @Test
  void inRecordModeTagsAreNotServed() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("tags-record"));
    api.declare("ns", "t");
    api.post(T + "/tags/list", "{}").assertError(406, 0);
  }
}
