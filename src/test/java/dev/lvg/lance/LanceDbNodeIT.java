package dev.lvg.lance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.NodeProject;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * LanceDB for Node ({@code @lancedb/lancedb@0.31.0}, pinned by the lock file in {@code
 * src/test/node/lancedb-smoke}) creates a table, adds rows, opens it, lists its versions and checks
 * out version 1 through the gateway, which finalizes every manifest; and renames, drops, creates a
 * dropped name again, drops every table and the namespace. A key scoped to one namespace is used by
 * that version and by the newest the registry serves ({@code src/test/node/lancedb-newest}).
 */
public class LanceDbNodeIT {
  private static final NodeProject PROJECT = NodeProject.of("lancedb-smoke", "@lancedb/lancedb");

  /** The newest LanceDB for Node the registry serves, for the scripts both versions run. */
  private static final NodeProject NEWEST =
      NodeProject.partlyPublished("lancedb-newest", "@lancedb/lancedb");

  @Test
  void createAddOpenListAndCheckOut() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb");
    Api api = gw.api(key);
    JsonNode result = script(gw, key, api, "smoke.mjs");
    assertThat(result.get("rows").intValue()).isEqualTo(3);
    assertThat(result.get("versions").toString()).isEqualTo("[1,2]");
    assertThat(result.get("rowsAtVersion1").intValue()).isEqualTo(2);

    JsonNode versions =
        api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions");
    assertThat(versions).hasSize(2);
    for (JsonNode version : versions) {
      assertThat(version.get("manifest_path").asText()).matches(".*/_versions/\\d{20}\\.manifest");
      assertThat(Path.of("/" + version.get("manifest_path").asText())).exists();
    }
    Path location =
        Path.of(
            api.post("/v1/table/ns1%24events/describe", "{}").assertOk().get("location").asText());
    try (var files = Files.list(location.resolve("_versions"))) {
      assertThat(
              files
                  .map(file -> file.getFileName().toString())
                  .filter(name -> !name.equals("latest_version_hint.json"))
                  .sorted()
                  .toList())
          .as("final manifests (and Lance's own hint) only: no staging manifest or mark left")
          .containsExactly("18446744073709551613.manifest", "18446744073709551614.manifest");
    }
  }

  @Test
  void aKeyScopedToOneNamespaceWorksThereAndIsAnsweredNotFoundElsewhere() throws Exception {
    String adminKey = "admin-" + UUID.randomUUID();
    TestGateway gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_MANIFEST_MODE",
                "finalize",
                "LVG_DB_URL",
                TestGateway.shared().databaseUrl(),
                "LVG_ADMIN_API_KEY",
                adminKey));
    try {
      for (NodeProject lancedb : List.of(PROJECT, NEWEST)) {
        scopedKey(gw, adminKey, lancedb);
      }
    } finally {
      gw.gateway.close();
    }
  }

  /** {@code scoped.mjs} of {@code lancedb}'s version with a key that may manage team_a only. */
  private static void scopedKey(TestGateway gw, String adminKey, NodeProject lancedb)
      throws Exception {
    String tenant = "scoped-" + UUID.randomUUID().toString().substring(0, 8);
    Api owner = gw.api(gw.tenantWithKey(tenant));
    owner.post("/v1/namespace/team_a/create", "{}").assertOk();
    owner.post("/v1/namespace/team_b/create", "{}").assertOk();
    owner.post("/v1/table/team_b%24plans/declare", "{}").assertOk();
    String scoped =
        Api.call(
                gw.baseUrl,
                "POST",
                "/admin/v1/tenants/" + tenant + "/keys",
                "{\"grants\":[{\"right\":\"manage\",\"namespace\":[\"team_a\"]}]}",
                adminKey)
            .assertOk()
            .get("api_key")
            .asText();
    JsonNode result = lancedb.run("scoped.mjs", gw.baseUrl, scoped);
    assertThat(result.get("rows").intValue()).isEqualTo(3);
    assertThat(result.get("tagged").toString()).isEqualTo("[\"first\"]");
    assertThat(result.get("names").toString()).isEqualTo("[\"events\"]");
    assertThat(result.get("namespaces").get("namespaces").toString()).isEqualTo("[\"team_a\"]");
    result
        .get("outside")
        .fields()
        .forEachRemaining(
            refused ->
                assertThat(refused.getValue().asText())
                    .as(refused.getKey())
                    .contains("team_b")
                    .containsIgnoringCase("not found"));
    owner.post("/v1/table/team_b%24plans/describe", "{}").assertOk();
    owner.post("/v1/table/team_b%24intruder/describe", "{}").assertError(404, 4);
  }

  @Test
  void aRestoredVersionIsTheLatestLanceDbReadsAndWritesAfter() throws Exception {
    restoreAndWriteAfter(TestGateway.finalizing());
  }

  private static void restoreAndWriteAfter(TestGateway gw) throws Exception {
    String key = gw.newTenant("lancedb-restore");
    Api api = gw.api(key);
    JsonNode result = script(gw, key, api, "restore.mjs");
    assertThat(result.get("restoreStatus").intValue()).isEqualTo(200);
    assertThat(result.get("rowsAfterRestore").intValue()).isEqualTo(2);
    assertThat(result.get("versionAfterRestore").intValue()).isEqualTo(3);
    assertThat(result.get("ids").toString()).isEqualTo("[1,2,4]");
    assertThat(result.get("versions").toString()).isEqualTo("[1,2,3,4]");
    assertThat(result.get("rowsAtVersion2").intValue()).isEqualTo(3);
  }

  @Test
  void renameDropCreateAgainDropAllAndDropTheNamespace() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb-life");
    Api api = gw.api(key);
    JsonNode result = script(gw, key, api, "lifecycle.mjs");
    assertThat(result.get("namesAfterRename").toString()).isEqualTo("[\"taps\"]");
    assertThat(result.get("renamedRows").intValue()).isEqualTo(4);
    assertThat(result.get("renamedVersions").toString()).isEqualTo("[1,2,3]");
    assertThat(result.get("namesAfterDrop").toString()).isEqualTo("[]");
    assertThat(result.get("againRows").intValue()).isEqualTo(1);
    assertThat(result.get("againVersions").toString()).isEqualTo("[1]");
    assertThat(result.get("namesAfterDropAll").toString()).isEqualTo("[]");
    assertThat(result.get("namespaces").get("namespaces").toString()).isEqualTo("[]");

    // Every table the script made was dropped, so each one's data goes in the background; the
    // re-created name got a location of its own.
    api.post("/v1/namespace/ns1/describe", "{}").assertError(404, 1);
    List<String> locations = new ArrayList<>();
    try (Connection db = gw.jdbc();
        PreparedStatement query =
            db.prepareStatement(
                "SELECT t.location, t.dropped_at IS NOT NULL FROM lance_tables t"
                    + " JOIN api_keys k ON k.tenant_id = t.tenant_id"
                    + " WHERE k.key_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')")) {
      query.setString(1, key);
      try (ResultSet rows = query.executeQuery()) {
        while (rows.next()) {
          assertThat(rows.getBoolean(2)).as("%s dropped", rows.getString(1)).isTrue();
          locations.add(rows.getString(1));
        }
      }
    }
    assertThat(locations).hasSize(3).doesNotHaveDuplicates();
    long deadline = System.currentTimeMillis() + 20_000;
    for (String location : locations) {
      while (Files.exists(Path.of(location)) && System.currentTimeMillis() < deadline) {
        Thread.sleep(50);
      }
      assertThat(Path.of(location)).as("data of a dropped table").doesNotExist();
    }
  }

  @Test
  void aTableNamedInSeveralScriptsOpensByEitherNormalizationRenamesAndDrops() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb-unicode");
    Api api = gw.api(key);
    api.post("/v1/namespace/donn%C3%A9es/create", "{}").assertOk();
    JsonNode result = node("unicode.mjs", gw.baseUrl, key);
    assertThat(result.get("rowsByDecomposedName").intValue()).isEqualTo(3);
    assertThat(result.get("versions").toString()).isEqualTo("[1,2]");
    assertThat(result.get("namesBefore").toString()).isEqualTo("[\"数据 \uD83E\uDD86 café\"]");
    assertThat(result.get("renamedRows").intValue()).isEqualTo(4);
    assertThat(result.get("namesAfterRename").toString()).isEqualTo("[\"جدول\"]");
    assertThat(result.get("namesAfterDrop").toString()).isEqualTo("[]");
    assertThat(
            api.post("/v1/table/donn%C3%A9es%24%D8%AC%D8%AF%D9%88%D9%84/describe", "{}").status())
        .isEqualTo(404);
  }

  @Test
  void everyKindOfWriteCommitsAndVersionsACleanupRemovedLeaveTheCatalog() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb-cleanup");
    Api api = gw.api(key);
    JsonNode result = script(gw, key, api, "cleanup.mjs");
    assertThat(result.get("written").toString()).isEqualTo("[1,4,5,30]");
    assertThat(result.get("restored").toString()).isEqualTo("[1,2,3,4]");
    assertThat(result.get("before").toString()).isEqualTo("[1,2,3,4,5,6,7,8]");
    assertThat(result.get("failed").toString()).isEqualTo("[]");
    long latest = result.get("after").get(result.get("after").size() - 1).asLong();

    JsonNode listed =
        api.post("/v1/table/ns1%24pruned/version/list", null).assertOk().get("versions");
    assertThat(listed).as("only versions whose manifests exist").isNotEmpty();
    for (JsonNode version : listed) {
      assertThat(Path.of("/" + version.get("manifest_path").asText())).exists();
    }
    assertThat(listed.get(listed.size() - 1).get("version").asLong()).isEqualTo(latest);
    api.post("/v1/table/ns1%24pruned/version/describe", "{\"version\":1}").assertError(404, 11);
    assertThat(
            api.post("/v1/table/ns1%24pruned/version/describe", "{}")
                .assertOk()
                .get("version")
                .get("version")
                .asLong())
        .isEqualTo(latest);
    assertThat(api.post("/v1/table/ns1%24pruned/describe", "{}").assertOk().get("version").asLong())
        .isEqualTo(latest);
  }

  @Test
  void tagsMadeOnEitherSideAreSeenOnTheOther() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb-tags");
    Api api = gw.api(key);
    JsonNode result = script(gw, key, api, "tags.mjs");
    JsonNode listed = result.get("listedByGateway");
    assertThat(listed.get("status").asInt()).isEqualTo(200);
    assertThat(listed.get("body").get("tags").get("by-lancedb").get("version").asLong())
        .isEqualTo(1);
    assertThat(listed.get("body").get("tags").get("by-lancedb").get("manifestSize").asLong())
        .isPositive();
    assertThat(result.get("created").asInt()).isEqualTo(200);
    assertThat(result.get("seenByLanceDb").toString()).isEqualTo("[\"by-gateway\",\"by-lancedb\"]");
    assertThat(result.get("versionOfGatewayTag").asLong()).isEqualTo(2);
    assertThat(result.get("rowsAtGatewayTag").asInt()).isEqualTo(3);
    assertThat(result.get("rowsAtLanceDbTag").asInt()).isEqualTo(2);
    assertThat(result.get("afterDelete").asInt()).as("a tag LanceDB deleted").isEqualTo(404);
  }

  /**
   * Creates namespace ns1 for the tenant of {@code key}, runs {@code script} against the gateway
   * and answers the JSON line it printed last.
   */
  public static JsonNode script(TestGateway gw, String key, Api api, String script)
      throws Exception {
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    return node(script, gw.baseUrl, key);
  }

  /** Runs {@code script} with {@code args} and answers the JSON line it printed last. */
  public static JsonNode node(String script, String... args) throws Exception {
    return PROJECT.run(script, args);
  }

  /** Starts {@code script} with {@code args}, its output going to {@code log}. */
  public static Process startNode(Path log, String script, String... args) throws Exception {
    return PROJECT.start(log, script, args);
  }
}
