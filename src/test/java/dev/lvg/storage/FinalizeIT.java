package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** version/create on a table in local storage: staging manifests become final manifests. */
class FinalizeIT {
  private TestGateway gw;
  private Api api;
  private Path table;

  @BeforeEach
  void declare() throws Exception {
    gw = TestGateway.finalizing();
    api = gw.api(gw.newTenant("finalize"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    table = Path.of(api.post("/v1/table/ns%24t/declare", "{}").assertOk().get("location").asText());
    Files.createDirectories(table.resolve("_versions"));
  }

  /** Writes a staging manifest as a Lance writer does and returns the path it sends. */
  private String stage(String name, String content) throws Exception {
    Path staging = table.resolve("_versions").resolve(name);
    Files.createDirectories(staging.getParent());
    Files.write(staging, ManifestFiles.of(content));
    return staging.toString().substring(1);
  }

  private static String create(long version, String path, String scheme) {
    return "{\"version\":"
        + version
        + ",\"manifest_path\":\""
        + path
        + "\",\"manifest_size\":3,"
        + "\"naming_scheme\":\""
        + scheme
        + "\"}";
  }

  private static final String CREATE = "/v1/table/ns%24t/version/create";

  @Test
  void stagingBecomesTheFinalManifestAndTheRetryGetsTheSameAnswer() throws Exception {
    String staging = stage("18446744073709551614.manifest-" + UUID.randomUUID(), "manifest one");
    JsonNode first = api.post(CREATE, create(1, staging, "V2")).assertOk();
    Path finalManifest = table.resolve("_versions/18446744073709551614.manifest");
    assertThat(first.get("version").get("manifest_path").asText())
        .isEqualTo(finalManifest.toString().substring(1));
    assertThat(first.get("version").get("manifest_size").longValue())
        .isEqualTo(ManifestFiles.of("manifest one").length);
    assertThat(first.get("version").get("e_tag").asText())
        .matches(
            "[0-9a-f]+-[0-9a-f]+-" + Integer.toHexString(ManifestFiles.of("manifest one").length));
    assertThat(ManifestFiles.textOf(finalManifest)).isEqualTo("manifest one");
    assertThat(Files.exists(Path.of("/" + staging))).isFalse();

    assertThat(api.post(CREATE, create(1, staging, "V2")).assertOk()).isEqualTo(first);
    JsonNode listed = api.post("/v1/table/ns%24t/version/list", null).assertOk().get("versions");
    assertThat(listed).hasSize(1);
    assertThat(listed.get(0).get("manifest_path").asText())
        .isEqualTo(finalManifest.toString().substring(1));
  }

  @Test
  void namingSchemesAndBranchesPickTheFinalName() throws Exception {
    api.post(CREATE, create(1, stage("1.manifest-a", "v1"), "V1")).assertOk();
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest"))).isEqualTo("v1");
    api.post(CREATE, create(2, stage("18446744073709551613.manifest-b", "v2"), "V2")).assertOk();
    assertThat(ManifestFiles.textOf(table.resolve("_versions/18446744073709551613.manifest")))
        .isEqualTo("v2");
    api.post("/v1/table/ns%24t/branches/create", "{\"name\":\"dev\"}").assertOk();
    Path branchStaging = table.resolve("tree/dev/_versions/3.manifest-c");
    Files.createDirectories(branchStaging.getParent());
    Files.write(branchStaging, ManifestFiles.of("b3"));
    api.post(
            CREATE,
            "{\"branch\":\"dev\",\"version\":3,\"manifest_path\":\""
                + branchStaging.toString().substring(1)
                + "\",\"naming_scheme\":\"V1\"}")
        .assertOk();
    assertThat(ManifestFiles.textOf(table.resolve("tree/dev/_versions/3.manifest")))
        .isEqualTo("b3");
  }

  @Test
  void missingStagingIs400AndAForeignFinalManifestIs409() throws Exception {
    api.post(CREATE, create(1, table.toString().substring(1) + "/_versions/1.manifest-never", "V1"))
        .assertError(400, 13);
    Files.write(table.resolve("_versions/1.manifest"), ManifestFiles.of("someone else's commit"));
    String staging = stage("1.manifest-mine", "mine");
    api.post(CREATE, create(1, staging, "V1")).assertError(409, 14);
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest")))
        .isEqualTo("someone else's commit");
    assertThat(api.post("/v1/table/ns%24t/version/list", null).assertOk().get("versions"))
        .isEmpty();

    Files.write(table.resolve("_versions/2.manifest"), ManifestFiles.of("same bytes"));
    api.post(
            "/v1/table/ns%24t/version/delete",
            "{\"ranges\":[{\"start_version\":0,\"end_version\":-1}]}")
        .assertOk();
    JsonNode same =
        api.post(CREATE, create(2, stage("2.manifest-x", "same bytes"), "V1")).assertOk();
    assertThat(same.get("version").get("manifest_path").asText()).endsWith("/_versions/2.manifest");
  }

  @Test
  void manifestPathsOutsideTheTablesVersionsAre400() throws Exception {
    String inside = table.toString().substring(1);
    api.post("/v1/table/ns%24other/declare", "{}").assertOk();
    Path other =
        Path.of(
            api.post("/v1/table/ns%24other/describe", "{}").assertOk().get("location").asText());
    Files.createDirectories(other.resolve("_versions"));
    Files.write(other.resolve("_versions/1.manifest-x"), ManifestFiles.of("theirs"));
    for (String bad :
        new String[] {
          other.toString().substring(1) + "/_versions/1.manifest-x",
          inside + "/_versions/../../other.lance/_versions/1.manifest-x",
          inside + "/data/1.manifest-x",
          inside + "/_versions/sub/1.manifest-x",
          inside + "/_versions/",
          "/etc/passwd",
          "file:///" + inside + "/_versions/1.manifest-x",
          "s3://bucket/" + inside + "/_versions/1.manifest-x"
        }) {
      api.post(CREATE, create(1, bad, "V1")).assertError(400, 13);
    }
    assertThat(ManifestFiles.textOf(other.resolve("_versions/1.manifest-x"))).isEqualTo("theirs");
  }

  /** Declares table {@code name} in namespace ns; its {@code _versions} directory exists. */
  private Path declareTable(String name) throws Exception {
    Path location =
        Path.of(
            api.post("/v1/table/ns%24" + name + "/declare", "{}")
                .assertOk()
                .get("location")
                .asText());
    Files.createDirectories(location.resolve("_versions"));
    return location;
  }

  private CompletableFuture<Api.Response> createAsync(String table, long version, String path) {
    return api.postAsync(
        "/v1/table/ns%24" + table + "/version/create", create(version, path, "V1"));
  }

  private static String staged(Path table, String name, String content) throws Exception {
    Path staging = table.resolve("_versions").resolve(name);
    Files.write(staging, ManifestFiles.of(content));
    return staging.toString().substring(1);
  }

  @Test
  void oneBatchOfGoodAndBadCreatesAnswersEachOnItsOwnAndKeepsOnlyTheGoodOnes() throws Exception {
    Path blocker = declareTable("blocker");
    Path good = declareTable("good");
    Path other = declareTable("other");
    Path missing = declareTable("missing");
    Path foreign = declareTable("foreign");
    Path gap = declareTable("gap");
    Files.write(foreign.resolve("_versions/1.manifest"), ManifestFiles.of("someone else's commit"));
    api.post("/v1/table/ns%24gap/version/create", create(1, staged(gap, "1.m-a", "g1"), "V1"))
        .assertOk();
    CompletableFuture<Api.Response> first;
    List<CompletableFuture<Api.Response>> mixed = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      first = createAsync("blocker", 1, staged(blocker, "1.m-a", "b"));
      lock.awaitSessionsWaiting(1);
      mixed.add(createAsync("good", 1, staged(good, "1.m-a", "g1")));
      mixed.add(createAsync("other", 1, staged(other, "1.m-a", "o1")));
      mixed.add(
          createAsync("missing", 1, missing.toString().substring(1) + "/_versions/1.m-never"));
      mixed.add(createAsync("foreign", 1, staged(foreign, "1.m-a", "mine")));
      mixed.add(createAsync("gap", 3, staged(gap, "3.m-a", "g3")));
      mixed.add(createAsync("undeclared", 1, good.toString().substring(1) + "/_versions/1.m-a"));
      lock.awaitQueued(mixed.size());
    }
    first.join().assertOk();
    mixed.get(0).join().assertOk();
    mixed.get(1).join().assertOk();
    mixed.get(2).join().assertError(400, 13);
    mixed.get(3).join().assertError(409, 14);
    mixed.get(4).join().assertError(409, 14);
    mixed.get(5).join().assertError(404, 4);
    assertThat(ManifestFiles.textOf(good.resolve("_versions/1.manifest"))).isEqualTo("g1");
    assertThat(ManifestFiles.textOf(other.resolve("_versions/1.manifest"))).isEqualTo("o1");
    assertThat(Files.exists(good.resolve("_versions/1.m-a"))).isFalse();
    assertThat(ManifestFiles.textOf(foreign.resolve("_versions/1.manifest")))
        .isEqualTo("someone else's commit");
    for (String name : List.of("good", "other", "gap")) {
      assertThat(
              api.post("/v1/table/ns%24" + name + "/version/list", null).assertOk().get("versions"))
          .hasSize(1);
    }
    for (String name : List.of("missing", "foreign")) {
      assertThat(
              api.post("/v1/table/ns%24" + name + "/version/list", null).assertOk().get("versions"))
          .isEmpty();
    }
    assertThat(Files.exists(gap.resolve("_versions/3.manifest"))).isFalse();
    try (var files = Files.list(foreign.resolve("_versions"))) {
      assertThat(files.map(f -> f.getFileName().toString()))
          .as("no mark is left where the batch's copy was refused")
          .containsExactlyInAnyOrder("1.manifest", "1.m-a");
    }
  }

  @Test
  void aStatementThatFailsInABatchRollsItAllBackAndTheOthersSucceedOnTheirOwn() throws Exception {
    Path blocker = declareTable("blocker");
    Path good = declareTable("good");
    Path doomed = declareTable("doomed");
    try (Connection db = gw.jdbc();
        Statement statement = db.createStatement()) {
      statement.execute(
          """
          CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
          BEGIN
            IF NEW.version = 424242 AND NEW.manifest_path <> OLD.manifest_path THEN
              RAISE EXCEPTION 'refused by the test';
            END IF;
            RETURN NEW;
          END $$;
          CREATE TRIGGER refuse_doomed BEFORE UPDATE ON table_versions
            FOR EACH ROW EXECUTE FUNCTION refuse_doomed();
          """);
    }
    String doomedStaging = staged(doomed, "424242.m-a", "d");
    CompletableFuture<Api.Response> first;
    CompletableFuture<Api.Response> goodCall;
    CompletableFuture<Api.Response> doomedCall;
    try {
      try (TableLock lock = new TableLock(gw, "table_versions")) {
        first = createAsync("blocker", 1, staged(blocker, "1.m-a", "b"));
        lock.awaitSessionsWaiting(1);
        goodCall = createAsync("good", 1, staged(good, "1.m-a", "g1"));
        doomedCall = createAsync("doomed", 424242, doomedStaging);
        lock.awaitQueued(2);
      }
      first.join().assertOk();
      goodCall.join().assertOk();
      assertThat(doomedCall.join().status())
          .as("a database failure the gateway cannot explain")
          .isEqualTo(500);
    } finally {
      try (Connection db = gw.jdbc();
          Statement statement = db.createStatement()) {
        statement.execute("DROP TRIGGER refuse_doomed ON table_versions");
        statement.execute("DROP FUNCTION refuse_doomed()");
      }
    }
    assertThat(ManifestFiles.textOf(good.resolve("_versions/1.manifest"))).isEqualTo("g1");
    assertThat(api.post("/v1/table/ns%24doomed/version/list", null).assertOk().get("versions"))
        .as("the refused version's row went with its transaction")
        .isEmpty();
    JsonNode retried =
        api.post("/v1/table/ns%24doomed/version/create", create(424242, doomedStaging, "V1"))
            .assertOk();
    assertThat(retried.get("version").get("manifest_path").asText())
        .endsWith("/_versions/424242.manifest");
    assertThat(ManifestFiles.textOf(doomed.resolve("_versions/424242.manifest"))).isEqualTo("d");
  }

  @Test
  void thirtyIdenticalRacersAllSucceedWithOneRowAndOneFinalManifest() throws Exception {
    String staging = stage("18446744073709551614.manifest-race", "raced");
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int i = 0; i < 30; i++) {
        calls.add(api.postAsync(CREATE, create(1, staging, "V2")));
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(29);
    }
    Set<String> transactions = new HashSet<>();
    for (CompletableFuture<Api.Response> call : calls) {
      JsonNode body = call.join().assertOk();
      assertThat(body.get("version").get("manifest_path").asText())
          .endsWith("/_versions/18446744073709551614.manifest");
      transactions.add(body.get("transaction_id").asText());
    }
    assertThat(transactions).hasSize(1);
    assertThat(api.post("/v1/table/ns%24t/version/list", null).assertOk().get("versions"))
        .hasSize(1);
    try (var files = Files.list(table.resolve("_versions"))) {
      assertThat(files.map(f -> f.getFileName().toString()).toList())
          .containsExactly("18446744073709551614.manifest");
    }
  }

  @Test
  void racersWithDifferentManifestsLeaveOneWinnerWhoseBytesAreFinal() throws Exception {
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int i = 0; i < 10; i++) {
        calls.add(api.postAsync(CREATE, create(1, stage("1.manifest-" + i, "content " + i), "V1")));
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(9);
    }
    List<Api.Response> responses = calls.stream().map(CompletableFuture::join).toList();
    List<Integer> winners = new ArrayList<>();
    for (int i = 0; i < responses.size(); i++) {
      if (responses.get(i).status() == 200) {
        winners.add(i);
      } else {
        responses.get(i).assertError(409, 14);
      }
    }
    assertThat(winners).hasSize(1);
    assertThat(ManifestFiles.textOf(table.resolve("_versions/1.manifest")))
        .isEqualTo("content " + winners.get(0));
  }

  @Test
  void aFinalManifestLeftByAnAttemptThatDiedIsReplacedByTheNextWriter() throws Exception {
    stage("1.manifest-dead", "dead attempt");
    Path abandoned = table.resolve("_versions/1.manifest");
    Path mark = table.resolve("_versions/.1.manifest." + UUID.randomUUID() + ".lvg");
    Files.write(mark, ManifestFiles.of("dead attempt"));
    Files.createLink(abandoned, mark);
    api.post("/v1/table/ns%24t/version/describe", "{\"version\":1}").assertError(404, 11);

    JsonNode body =
        api.post(CREATE, create(1, stage("1.manifest-live", "live attempt"), "V1")).assertOk();

    assertThat(body.get("version").get("version").longValue()).isEqualTo(1);
    assertThat(ManifestFiles.textOf(abandoned)).isEqualTo("live attempt");
    assertThat(versionFiles()).containsExactlyInAnyOrder("1.manifest", "1.manifest-dead");
  }

  @Test
  void aRetryAfterACrashBetweenCommitAndCleanupGetsTheRowAndCleansUp() throws Exception {
    String staging = stage("1.manifest-once", "committed once");
    JsonNode first = api.post(CREATE, create(1, staging, "V1")).assertOk();
    Files.write(Path.of("/" + staging), ManifestFiles.of("committed once"));
    String attempt = first.get("transaction_id").asText();
    Path mark = table.resolve("_versions/.1.manifest." + attempt + ".lvg");
    Files.createLink(mark, table.resolve("_versions/1.manifest"));

    assertThat(api.post(CREATE, create(1, staging, "V1")).assertOk()).isEqualTo(first);

    assertThat(versionFiles()).containsExactly("1.manifest");
  }

  private List<String> versionFiles() throws Exception {
    try (var files = Files.list(table.resolve("_versions"))) {
      return files.map(f -> f.getFileName().toString()).toList();
    }
  }

  @Test
  void versionsWhoseManifestsAWriterRemovedLeaveTheCatalogWhenRead() throws Exception {
    for (long v = 1; v <= 4; v++) {
      api.post(CREATE, create(v, stage(v + ".manifest-" + UUID.randomUUID(), "m" + v), "V1"))
          .assertOk();
    }
    // A writer's cleanup removes old manifests without telling the catalog.
    Files.delete(table.resolve("_versions/1.manifest"));
    Files.delete(table.resolve("_versions/3.manifest"));

    JsonNode page = api.post("/v1/table/ns%24t/version/list?limit=2", null).assertOk();
    assertThat(page.get("versions")).extracting(v -> v.get("version").asLong()).containsExactly(2L);
    JsonNode rest =
        api.post(
                "/v1/table/ns%24t/version/list?limit=2&page_token="
                    + page.get("page_token").asText(),
                null)
            .assertOk();
    assertThat(rest.get("versions")).extracting(v -> v.get("version").asLong()).containsExactly(4L);
    api.post("/v1/table/ns%24t/version/describe", "{\"version\":1}").assertError(404, 11);
    api.post("/v1/table/ns%24t/version/describe", "{\"version\":2}").assertOk();
    try (Connection db = gw.jdbc();
        Statement statement = db.createStatement();
        ResultSet rows =
            statement.executeQuery(
                "SELECT count(*) FROM table_versions v JOIN lance_tables t"
                    + " ON t.tenant_id = v.tenant_id AND t.id = v.table_id"
                    + " WHERE t.location = '"
                    + table
                    + "'")) {
      rows.next();
      assertThat(rows.getInt(1)).as("the pruned versions' rows are gone").isEqualTo(2);
    }
    api.post(CREATE, create(5, stage("5.manifest-" + UUID.randomUUID(), "m5"), "V1")).assertOk();
  }
}
