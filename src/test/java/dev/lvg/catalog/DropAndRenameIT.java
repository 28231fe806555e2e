package dev.lvg.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DropTable and RenameTable on a finalizing gateway with local storage: a drop takes the table out
 * of the catalog at once and its data off the disk soon after, touching nothing else; a name
 * declared again gets a location of its own, so a writer of the old table cannot commit into the
 * new one; a rename keeps versions, branches and location.
 */
class DropAndRenameIT {
  private static final long DELETION_WAIT_MILLIS = 20_000;

  private TestGateway gw;
  private Api api;

  @BeforeEach
  void tenant() {
    gw = TestGateway.finalizing();
    api = gw.api(gw.newTenant("lifecycle"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
  }

  private Path declare(String table) {
    return Path.of(
        api.post("/v1/table/ns%24" + table + "/declare", "{}").assertOk().get("location").asText());
  }

  /** Commits {@code version} of {@code table} at {@code location} from a real staging file. */
  private JsonNode commit(String table, Path location, long version) throws Exception {
    return api.commitStaged("ns", table, location, version);
  }

  private static void awaitGone(Path location) throws InterruptedException {
    long deadline = System.currentTimeMillis() + DELETION_WAIT_MILLIS;
    while (Files.exists(location) && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(location).as("the dropped table's data").doesNotExist();
  }

  @Test
  void aDroppedTableLeavesTheCatalogAtOnceAndItsDataSoonAfter() throws Exception {
    Path dropped = declare("gone");
    Path kept = declare("kept");
    commit("gone", dropped, 1);
    commit("gone", dropped, 2);
    Files.writeString(dropped.resolve("data.lance"), "rows");
    commit("kept", kept, 1);

    JsonNode answer = api.post("/v1/table/ns%24gone/drop", null).assertOk();
    assertThat(answer.get("location").asText()).isEqualTo(dropped.toString());
    assertThat(answer.get("properties").isObject()).isTrue();
    assertThat(answer.get("transaction_id").asText()).isNotBlank();
    api.post("/v1/table/ns%24gone/describe", "{}").assertError(404, 4);
    api.post("/v1/table/ns%24gone/version/list", null).assertError(404, 4);
    api.post("/v1/table/ns%24gone/drop", "{}").assertError(404, 4);
    api.post("/v1/table/nope%24gone/drop", "{}").assertError(404, 1);
    assertThat(api.get("/v1/namespace/ns/table/list").assertOk().get("tables"))
        .extracting(JsonNode::asText)
        .containsExactly("kept");

    awaitGone(dropped);
    assertThat(ManifestFiles.textOf(kept.resolve("_versions/1.manifest")))
        .isEqualTo("kept version 1");
    assertThat(countRows("table_versions", answer)).as("the dropped table's versions").isZero();
    assertThat(countRows("table_drops", answer)).as("the finished job").isZero();

    Path again = declare("gone");
    assertThat(again).as("a new incarnation's location").isNotEqualTo(dropped);
    assertThat(again.getFileName().toString()).matches("gone-[0-9a-f]{8}\\.lance");
    commit("gone", again, 1);
    assertThat(api.post("/v1/table/ns%24gone/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }

  @Test
  void aWriterOfTheDroppedTableCannotCommitIntoTheNewOne() throws Exception {
    Path old = declare("reborn");
    commit("reborn", old, 1);
    // The old writer staged its next manifest before the drop, and the deletion has not reached it
    // yet when it commits: the same name now belongs to a table elsewhere.
    Path staging = old.resolve("_versions/2.manifest-stale");
    api.post("/v1/table/ns%24reborn/drop", "{}").assertOk();
    Path fresh = declare("reborn");
    commit("reborn", fresh, 1);
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of("stale"));
    api.post(
            "/v1/table/ns%24reborn/version/create",
            "{\"version\":2,\"manifest_path\":\"" + staging.toString().substring(1) + "\"}")
        .assertError(400, 13);
    assertThat(api.post("/v1/table/ns%24reborn/version/list", null).assertOk().get("versions"))
        .hasSize(1);
    assertThat(fresh.resolve("_versions/2.manifest")).doesNotExist();
  }

  @Test
  void dataSharedWithAnotherTableStaysWhenOneOfThemIsDropped() throws Exception {
    Path inner = declare("inner");
    commit("inner", inner, 1);
    String outer = inner.getParent().toString();
    api.post("/v1/table/ns%24outer/register", "{\"location\":\"" + outer + "\"}").assertOk();
    JsonNode answer = api.post("/v1/table/ns%24outer/drop", "{}").assertOk();
    long deadline = System.currentTimeMillis() + DELETION_WAIT_MILLIS;
    while (countRows("table_drops", answer) > 0 && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(countRows("table_drops", answer)).as("the job ended").isZero();
    assertThat(ManifestFiles.textOf(inner.resolve("_versions/1.manifest")))
        .isEqualTo("inner version 1");
    assertThat(api.post("/v1/table/ns%24inner/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }

  @Test
  void aDropQueuedByAGatewayThatDiedIsFinishedByAnother() throws Exception {
    Path location = declare("orphan");
    commit("orphan", location, 1);
    JsonNode table = api.post("/v1/table/ns%24orphan/describe", "{}").assertOk();
    // What a gateway that died right after answering a drop leaves: the table out of the
    // catalog and its job queued, nothing deleted yet.
    try (Connection db = gw.jdbc();
        PreparedStatement mark =
            db.prepareStatement(
                "WITH t AS (UPDATE lance_tables SET deregistered_at = now(), dropped_at = now()"
                    + " WHERE location = ? RETURNING tenant_id, id, location)"
                    + " INSERT INTO table_drops (tenant_id, table_id, location)"
                    + " SELECT tenant_id, id, location FROM t")) {
      mark.setString(1, table.get("location").asText());
      assertThat(mark.executeUpdate()).isEqualTo(1);
    }
    awaitGone(location);
    api.post("/v1/table/ns%24orphan/describe", "{}").assertError(404, 4);
  }

  @Test
  void anEmptyNewNamespaceIdKeepsTheTableInItsNamespace() {
    declare("stays");
    api.post("/v1/table/ns%24stays/rename", "{\"new_table_name\":\"kept\",\"new_namespace_id\":[]}")
        .assertOk();
    api.post("/v1/table/ns%24kept/describe", "{}").assertOk();
    api.post("/v1/table/kept/describe", "{}").assertError(404, 4);
  }

  @Test
  void renameKeepsVersionsBranchesAndLocation() throws Exception {
    Path location = declare("before");
    commit("before", location, 1);
    commit("before", location, 2);
    api.post("/v1/table/ns%24before/branches/create", "{\"name\":\"b\",\"from_version\":1}")
        .assertOk();
    api.post("/v1/namespace/other/create", "{}").assertOk();
    declare("taken");

    api.post("/v1/table/ns%24before/rename", "{}").assertError(400, 13);
    api.post("/v1/table/ns%24before/rename", "{\"new_table_name\":\"\"}").assertError(400, 13);
    api.post("/v1/table/ns%24before/rename", "{\"new_table_name\":\"a/b\"}").assertError(400, 13);
    api.post("/v1/table/ns%24nope/rename", "{\"new_table_name\":\"x\"}").assertError(404, 4);
    api.post("/v1/table/ns%24before/rename", "{\"new_table_name\":\"taken\"}").assertError(409, 5);
    api.post(
            "/v1/table/ns%24before/rename",
            "{\"new_table_name\":\"x\",\"new_namespace_id\":[\"missing\"]}")
        .assertError(404, 1);

    JsonNode renamed =
        api.post(
                "/v1/table/ns%24before/rename",
                "{\"new_table_name\":\"after\",\"new_namespace_id\":[\"other\"]}")
            .assertOk();
    assertThat(renamed.get("transaction_id").asText()).isNotBlank();
    api.post("/v1/table/ns%24before/describe", "{}").assertError(404, 4);
    JsonNode described = api.post("/v1/table/other%24after/describe", "{}").assertOk();
    assertThat(described.get("location").asText()).isEqualTo(location.toString());
    assertThat(described.get("version").asLong()).isEqualTo(2);
    assertThat(
            api.post("/v1/table/other%24after/branches/list", null)
                .assertOk()
                .get("branches")
                .has("b"))
        .isTrue();
    commit("before", declare("before"), 1);
    assertThat(declare("before2")).isNotEqualTo(location);
    api.post(
            "/v1/table/other%24after/version/create",
            "{\"version\":3,\"manifest_path\":\""
                + stageIn(location, 3)
                + "\",\"naming_scheme\":\"V1\"}")
        .assertOk();
    assertThat(location.resolve("_versions/3.manifest")).exists();
  }

  private static String stageIn(Path location, long version) throws Exception {
    Path staging = location.resolve("_versions/" + version + ".manifest-" + UUID.randomUUID());
    Files.write(staging, ManifestFiles.of("after version " + version));
    return staging.toString().substring(1);
  }

  private long countRows(String table, JsonNode dropAnswer) throws Exception {
    String sql =
        "SELECT count(*) FROM "
            + table
            + " WHERE table_id = (SELECT id FROM lance_tables WHERE location = ?)";
    try (Connection db = gw.jdbc();
        PreparedStatement query = db.prepareStatement(sql)) {
      query.setString(1, dropAnswer.get("location").asText());
      try (ResultSet rows = query.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }
}
