package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ConnectionCutter;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import io.vertx.pgclient.PgConnectOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The connection to PostgreSQL breaks after a statement did its work and before the gateway heard
 * the answer: the gateway reads the outcome back and answers what really happened, so a commit that
 * landed is acknowledged once and never reported as failed, and one that did not land is a 503 the
 * writer retries.
 */
class OutcomeReadBackIT {
  private static ConnectionCutter cutter;
  private static TestGateway recording;
  private static TestGateway finalizing;

  @BeforeAll
  static void start() throws Exception {
    PgConnectOptions database = PgConnectOptions.fromUri(TestGateway.shared().databaseUrl());
    cutter = new ConnectionCutter(database.getHost(), database.getPort());
    String throughCutter =
        "postgresql://"
            + database.getUser()
            + (database.getPassword() == null || database.getPassword().isEmpty()
                ? ""
                : ":" + database.getPassword())
            + "@127.0.0.1:"
            + cutter.port()
            + "/"
            + database.getDatabase();
    recording = TestGateway.dedicated(Map.of("LVG_DB_URL", throughCutter));
    finalizing =
        TestGateway.dedicated(Map.of("LVG_DB_URL", throughCutter, "LVG_MANIFEST_MODE", "finalize"));
  }

  @AfterAll
  static void stop() throws Exception {
    recording.gateway.close();
    finalizing.gateway.close();
    cutter.close();
  }

  /** Declares rb$t for {@code api} and returns its location. */
  private static Path declareTable(Api api) {
    api.post("/v1/namespace/rb/create", "{}").assertOk();
    return Path.of(api.post("/v1/table/rb%24t/declare", "{}").assertOk().get("location").asText());
  }

  /** Writes a staging manifest of version 1 under {@code table}. */
  private static Path stage(Path table, String suffix, String content) throws IOException {
    Path staging = table.resolve("_versions/1.manifest-" + suffix);
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of(content));
    return staging;
  }

  /** The create of version 1 from {@code staging}, named with the V1 scheme. */
  private static String createBody(Path staging) {
    return "{\"version\":1,\"manifest_path\":\""
        + staging.toString().substring(1)
        + "\",\"naming_scheme\":\"V1\"}";
  }

  @Test
  void anInsertThatCommittedButWasNotHeardIsAcknowledgedOnce() {
    Api api = recording.api(recording.newTenant("readback"));
    api.declare("rb", "t");
    String create = "/v1/table/rb%24t/version/create";

    // The recording insert is a WITH ... SELECT (its audit record goes with it): tag SELECT, with
    // the path it returns in the same answer (the gateway's own background queries have neither).
    int before = cutter.cuts();
    cutter.armFor("SELECT 1", "rb/1");
    JsonNode answer = api.post(create, Api.createBody(1, "rb/1")).assertOk();
    assertThat(cutter.cuts()).as("the connection broke after the insert").isEqualTo(before + 1);

    assertThat(answer.get("version").get("manifest_path").asText()).isEqualTo("rb/1");
    JsonNode versions = api.post("/v1/table/rb%24t/version/list", null).assertOk().get("versions");
    assertThat(versions).hasSize(1);
    assertThat(api.post(create, Api.createBody(1, "rb/1")).assertOk().get("transaction_id"))
        .isEqualTo(answer.get("transaction_id"));
    api.post(create, Api.createBody(2, "rb/2")).assertOk();
  }

  @Test
  void aFinalizedCommitWhoseAnswerWasLostIsAcknowledgedWithItsManifest() throws Exception {
    Api api = finalizing.api(finalizing.newTenant("readback"));
    Path table = declareTable(api);
    Path staging = stage(table, "lost-answer", "committed, answer lost");
    String body = createBody(staging);

    int before = cutter.cuts();
    cutter.armFor("COMMIT");
    JsonNode answer = api.post("/v1/table/rb%24t/version/create", body).assertOk();
    assertThat(cutter.cuts()).as("the connection broke after the commit").isEqualTo(before + 1);

    assertThat(answer.get("version").get("manifest_path").asText())
        .endsWith("_versions/1.manifest");
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest")))
        .isEqualTo("committed, answer lost");
    assertThat(Files.exists(staging)).as("the staging manifest was cleaned up").isFalse();
    assertThat(api.post("/v1/table/rb%24t/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }

  @Test
  void aFinalizingInsertCutBeforeItsCommitIsA503AndTheRetrySucceeds() throws Exception {
    Api api = finalizing.api(finalizing.newTenant("readback"));
    Path table = declareTable(api);
    Path staging = stage(table, "cut", "rolled back, then retried");
    String body = createBody(staging);
    int before = cutter.cuts();

    // Finalizing inserts through a WITH ... SELECT, whose command tag is SELECT; its answer holds
    // the staging path it recorded.
    cutter.armFor("SELECT 1", "manifest-cut");
    api.post("/v1/table/rb%24t/version/create", body).assertError(503, 17);
    assertThat(cutter.cuts()).isEqualTo(before + 1);
    assertThat(api.post("/v1/table/rb%24t/version/list", null).assertOk().get("versions"))
        .as("the transaction rolled back with its connection")
        .isEmpty();

    api.post("/v1/table/rb%24t/version/create", body).assertOk();
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest")))
        .isEqualTo("rolled back, then retried");
  }

  @Test
  void aFinalizedManifestWhoseTransactionBrokeAtItsAuditRecordIsA503AndTheRetrySucceeds()
      throws Exception {
    Api api = finalizing.api(finalizing.newTenant("readback"));
    Path table = declareTable(api);
    Path staging = stage(table, "audit-cut", "finalized, rolled back, then retried");
    String body = createBody(staging);
    int before = cutter.cuts();

    // The manifest is finalized, then the batch records its audit rows (the only INSERT tag of a
    // finalizing batch): the connection breaks there, before COMMIT.
    cutter.armFor("INSERT 0 1");
    api.post("/v1/table/rb%24t/version/create", body).assertError(503, 17);
    assertThat(cutter.cuts()).isEqualTo(before + 1);
    assertThat(api.post("/v1/table/rb%24t/version/list", null).assertOk().get("versions"))
        .as("the transaction rolled back with its connection")
        .isEmpty();

    JsonNode retried = api.post("/v1/table/rb%24t/version/create", body).assertOk();
    assertThat(retried.get("version").get("manifest_path").asText())
        .endsWith("_versions/1.manifest");
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest")))
        .isEqualTo("finalized, rolled back, then retried");
    assertThat(api.post("/v1/table/rb%24t/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }
}
