package dev.lvg.restore;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * {@code RestoreTable} on a finalizing gateway, with manifests laid out as Lance lays them out (the
 * writers' own restores are in LanceDbNodeIT and LanceWriterIT).
 */
class RestoreIT {
  private static Path location(Api api, String table) {
    return Path.of(
        api.post("/v1/table/r%24" + table + "/describe", "{}").assertOk().get("location").asText());
  }

  private static List<String> files(Path directory) throws Exception {
    if (!Files.exists(directory)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(directory)) {
      return files.map(file -> file.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void aRestoreCommitsTheOldManifestAsTheNextVersionWithItsOwnTransaction() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    Api api = gw.api(gw.newTenant("restore"));
    api.declare("r", "t");
    Path location = location(api, "t");
    api.commitStaged("r", "t", location, 1);
    api.commitStaged("r", "t", location, 2);

    String transaction =
        api.post("/v1/table/r%24t/restore", "{\"version\":1}")
            .assertOk()
            .get("transaction_id")
            .asText();
    JsonNode versions = api.post("/v1/table/r%24t/version/list", null).assertOk().get("versions");
    assertThat(versions).hasSize(3);
    JsonNode restored = versions.get(2);
    assertThat(restored.get("version").longValue()).isEqualTo(3);
    assertThat(restored.get("manifest_path").asText()).endsWith("/_versions/3.manifest");
    JsonNode described = api.post("/v1/transaction/" + transaction + "/describe", "{}").assertOk();
    assertThat(described.get("status").asText()).isEqualTo("Succeeded");
    assertThat(described.get("properties").get("version").asText()).isEqualTo("3");
    Path manifest = Path.of("/" + restored.get("manifest_path").asText());
    assertThat(ManifestFiles.textOf(manifest))
        .as("what lies before the manifest is version 1's")
        .isEqualTo("t version 1");

    String lance = restored.get("metadata").get("lance_transaction_uuid").asText();
    assertThat(files(location.resolve("_transactions"))).containsExactly("2-" + lance + ".txn");
    assertThat(files(location.resolve("_versions")))
        .as("final manifests only: the restore's staged one was finalized")
        .containsExactly("1.manifest", "2.manifest", "3.manifest");
  }

  @Test
  void whatCannotBeRestoredIsRefusedWithTheRightCode() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String tenant = "restore-refused-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    Api api = gw.api(gw.tenantWithKey(tenant));
    api.declare("r", "t");
    api.commitStaged("r", "t", location(api, "t"), 1);

    api.post("/v1/table/r%24t/restore", "{}").assertError(400, 13);
    api.post("/v1/table/r%24t/restore", "{\"version\":-1}").assertError(400, 13);
    api.post("/v1/table/r%24t/restore", "{\"version\":2}").assertError(404, 11);
    api.post("/v1/table/r%24t/restore", "{\"version\":1,\"branch\":\"b\"}").assertError(404, 22);
    api.post("/v1/table/r%24none/restore", "{\"version\":1}").assertError(404, 4);
    api.post("/v1/table/none%24t/restore", "{\"version\":1}").assertError(404, 1);
    gw.api(gw.readKey(tenant))
        .post("/v1/table/r%24t/restore", "{\"version\":1}")
        .assertError(403, 15);
    assertThat(api.post("/v1/table/r%24t/version/list", null).assertOk().get("versions"))
        .as("nothing refused was committed")
        .hasSize(1);
  }

  @Test
  void aRecordingGatewayDoesNotRestore() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("restore-record"));
    api.declare("r", "t");
    api.post("/v1/table/r%24t/version/create", Api.createBody(1, "r/1")).assertOk();
    Api.Response refused = api.post("/v1/table/r%24t/restore", "{\"version\":1}");
    refused.assertError(406, 0);
    assertThat(refused.json().get("error").asText()).contains("record mode");
  }

  @Test
  void aRestoreThatLosesItsNumberToACommitIsRefusedAndLeavesNoFiles() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    Api api = gw.api(gw.newTenant("restore-race"));
    api.declare("r", "t");
    Path location = location(api, "t");
    api.commitStaged("r", "t", location, 1);
    api.commitStaged("r", "t", location, 2);

    CompletableFuture<JsonNode> commit;
    CompletableFuture<Api.Response> restore;
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      commit =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return api.commitStaged("r", "t", location, 3);
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      lock.awaitSessionsWaiting(1);
      restore = api.postAsync("/v1/table/r%24t/restore", "{\"version\":1}");
      lock.awaitQueued(1);
    }
    assertThat(commit.join().get("version").get("version").longValue()).isEqualTo(3);
    restore.join().assertError(409, 14);
    assertThat(files(location.resolve("_versions")))
        .as("the restore's staged manifest went with it")
        .containsExactly("1.manifest", "2.manifest", "3.manifest");
    assertThat(files(location.resolve("_transactions"))).as("and its transaction file").isEmpty();
  }
}
