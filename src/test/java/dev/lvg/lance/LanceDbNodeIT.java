package dev.lvg.lance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * LanceDB for Node ({@code @lancedb/lancedb@0.31.0}, pinned by the lock file in {@code
 * src/test/node/lancedb-smoke}) creates a table, adds rows, opens it, lists its versions and checks
 * out version 1 through the gateway, which finalizes every manifest.
 */
class LanceDbNodeIT {
  private static final Path PROJECT = Path.of("src/test/node/lancedb-smoke");

  @Test
  void createAddOpenListAndCheckOut() throws Exception {
    if (!Files.isDirectory(PROJECT.resolve("node_modules/@lancedb/lancedb"))) {
      run(List.of("npm", "ci", "--omit=optional", "--no-audit", "--no-fund"), 600);
    }
    TestGateway gw = TestGateway.finalizing();
    String key = gw.newTenant("lancedb");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();

    String output = run(List.of("node", "smoke.mjs", gw.baseUrl, key), 120);
    String[] lines = output.strip().split("\n");
    JsonNode result = new ObjectMapper().readTree(lines[lines.length - 1]);
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

  private static String run(List<String> command, long timeoutSeconds) throws Exception {
    Path log = Files.createTempFile("lancedb-node-", ".log");
    Process process =
        new ProcessBuilder(command)
            .directory(PROJECT.toFile())
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    boolean finished = process.waitFor(timeoutSeconds, TimeUnit.SECONDS);
    if (!finished) {
      process.destroyForcibly();
    }
    String text = Files.readString(log, StandardCharsets.UTF_8);
    assertThat(finished)
        .as("%s finished within %d s; output:%n%s", command, timeoutSeconds, text)
        .isTrue();
    assertThat(process.exitValue()).as("%s exit code; output:%n%s", command, text).isZero();
    return text;
  }
}
