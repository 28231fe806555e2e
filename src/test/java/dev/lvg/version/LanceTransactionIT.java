package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A branch holds each Lance transaction once: two gateways on one database that receive one
 * transaction as two versions at the same moment commit it once; a staging file that is not a Lance
 * manifest is refused without claiming the version; a manifest that names no transaction is
 * committed and counted; record mode reads nothing.
 */
class LanceTransactionIT {
  private static final String T = "/v1/table/ns%24t";

  private static TestGateway first;
  private static TestGateway second;

  @BeforeAll
  static void start() throws Exception {
    Path root = Files.createTempDirectory("lvg-two-gateways-");
    Map<String, String> settings =
        Map.of(
            "LVG_MANIFEST_MODE",
            "finalize",
            "LVG_DB_URL",
            TestGateway.shared().databaseUrl(),
            "LVG_STORAGE_ROOT",
            "file://" + root);
    first = TestGateway.dedicated(settings);
    second = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() {
    first.gateway.close();
    second.gateway.close();
  }

  /** Writes a staging manifest for {@code version} naming {@code transaction}; its path. */
  private static String stage(Path table, long version, UUID transaction) throws Exception {
    byte[] manifest =
        ManifestFiles.manifest(
            ("version " + version).getBytes(), version - 1 + "-" + transaction + ".txn", null);
    return write(table, version, manifest);
  }

  private static String write(Path table, long version, byte[] bytes) throws Exception {
    Path staging = table.resolve("_versions/" + version + ".manifest-" + UUID.randomUUID());
    Files.createDirectories(staging.getParent());
    Files.write(staging, bytes);
    return staging.toString().substring(1);
  }

  private static String create(long version, String path) {
    return "{\"version\":" + version + ",\"manifest_path\":\"" + path + "\"}";
  }

  @Test
  void twoGatewaysGivenOneTransactionAsTwoVersionsAtOnceCommitItOnce() throws Exception {
    String key = first.newTenant("two-gateways");
    Api a = first.api(key);
    Api b = second.api(key);
    a.post("/v1/namespace/ns/create", "{}").assertOk();
    Path table = Path.of(a.post(T + "/declare", "{}").assertOk().get("location").asText());
    a.post(T + "/version/create", create(1, stage(table, 1, UUID.randomUUID()))).assertOk();

    long latest = 1;
    Set<UUID> transactions = new HashSet<>();
    for (int round = 0; round < 20; round++) {
      UUID transaction = UUID.randomUUID();
      transactions.add(transaction);
      long next = latest + 1;
      // The same transaction as the next version twice (two staging files, as a writer that lost
      // an answer makes) and as the one after: only one of the three may land.
      List<CompletableFuture<Api.Response>> sent = new ArrayList<>();
      sent.add(a.postAsync(T + "/version/create", create(next, stage(table, next, transaction))));
      sent.add(b.postAsync(T + "/version/create", create(next, stage(table, next, transaction))));
      sent.add(
          b.postAsync(
              T + "/version/create", create(next + 1, stage(table, next + 1, transaction))));
      List<Api.Response> answers = sent.stream().map(CompletableFuture::join).toList();
      assertThat(answers.stream().filter(answer -> answer.status() == 200))
          .as("round %d: %s", round, answers)
          .hasSize(1);
      for (Api.Response answer : answers) {
        if (answer.status() != 200) {
          answer.assertError(409, 14);
        }
      }
      assertThat(answers.get(2).status()).isEqualTo(409);

      // A writer that rebased the same transaction once more is told where it is.
      Api.Response again =
          b.post(T + "/version/create", create(next + 1, stage(table, next + 1, transaction)));
      again.assertError(409, 14);
      assertThat(again.json().get("error").asText())
          .isEqualTo("transaction " + transaction + " is already committed as version " + next);
      latest = next;
    }

    JsonNode versions = a.post(T + "/version/list?limit=100", null).assertOk().get("versions");
    assertThat(versions).hasSize(21);
    Set<String> named = new HashSet<>();
    for (JsonNode version : versions) {
      named.add(version.get("metadata").get(TableVersion.LANCE_TRANSACTION).asText());
    }
    assertThat(named).hasSize(21);
    assertThat(named).containsAll(transactions.stream().map(UUID::toString).toList());
  }

  @Test
  void aStagingFileThatIsNotALanceManifestIsRefusedAndLeavesTheVersionFree() throws Exception {
    Api api = first.api(first.newTenant("not-a-manifest"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    Path table = Path.of(api.post(T + "/declare", "{}").assertOk().get("location").asText());
    byte[] good = ManifestFiles.manifest(new byte[8], "0-" + UUID.randomUUID() + ".txn", null);
    byte[] badPosition = good.clone();
    badPosition[good.length - 16] = (byte) 0x7f;
    for (byte[] broken :
        List.of(
            "plain text".getBytes(),
            java.util.Arrays.copyOf(good, good.length - 3),
            badPosition,
            ManifestFiles.raw(new byte[] {(byte) 0xff, (byte) 0xff}))) {
      Api.Response refused = api.post(T + "/version/create", create(1, write(table, 1, broken)));
      refused.assertError(400, 13);
      assertThat(refused.json().get("error").asText()).contains("is not a Lance manifest");
    }
    assertThat(api.post(T + "/version/list", null).assertOk().get("versions")).isEmpty();
    assertThat(Files.exists(table.resolve("_versions/1.manifest"))).isFalse();

    // A file elsewhere is refused for where it is, whatever it holds.
    api.post(T + "/version/create", create(1, "etc/hostname")).assertError(400, 13);
    api.post(T + "/version/create", create(1, write(table, 1, good))).assertOk();
  }

  @Test
  void aManifestNamingNoTransactionIsCommittedAndCounted() throws Exception {
    Api api = first.api(first.newTenant("no-transaction"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    Path table = Path.of(api.post(T + "/declare", "{}").assertOk().get("location").asText());
    Metrics before = Metrics.scrape(first);
    for (long version = 1; version <= 2; version++) {
      JsonNode created =
          api.post(
                  T + "/version/create",
                  create(version, write(table, version, ManifestFiles.of(""))))
              .assertOk();
      assertThat(created.get("version").get("metadata").has(TableVersion.LANCE_TRANSACTION))
          .isFalse();
    }
    assertThat(Metrics.scrape(first).since(before, "lvg_manifests_without_transaction_total"))
        .isEqualTo(2);
  }

  @Test
  void recordModeReadsNoManifest() throws Exception {
    Api api = TestGateway.shared().api(TestGateway.shared().newTenant("recorded"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    String location = api.post(T + "/declare", "{}").assertOk().get("location").asText();
    Path table =
        location.startsWith("file:") ? Path.of(java.net.URI.create(location)) : Path.of(location);
    // Two versions whose manifests name one transaction: record mode never opens them, so both
    // are recorded and neither carries a transaction.
    UUID transaction = UUID.randomUUID();
    for (long version = 1; version <= 2; version++) {
      JsonNode created =
          api.post(T + "/version/create", create(version, stage(table, version, transaction)))
              .assertOk();
      assertThat(created.get("version").get("metadata").has(TableVersion.LANCE_TRANSACTION))
          .isFalse();
    }
    assertThat(api.post(T + "/version/list", null).assertOk().get("versions")).hasSize(2);
  }
}
