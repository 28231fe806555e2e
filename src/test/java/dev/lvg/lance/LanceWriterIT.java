package dev.lvg.lance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.cleanup.CleanupPolicy;
import org.lance.namespace.LanceNamespace;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.errors.PermissionDeniedException;
import org.lance.namespace.model.CreateTableVersionRequest;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.RenameTableRequest;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;

/** Real Lance writers (lance-core through JNI) commit through the gateway's REST namespace. */
class LanceWriterIT {
  private static final List<String> TABLE = LanceData.TABLE;
  private static final int APPENDERS = 8;

  private static BufferAllocator allocator;
  private static TestGateway gw;

  @BeforeAll
  static void start() {
    allocator = new RootAllocator();
    gw = TestGateway.finalizing();
  }

  @AfterAll
  static void stop() {
    allocator.close();
  }

  private static RestNamespace namespace(String apiKey) {
    RestNamespace namespace = new RestNamespace();
    namespace.initialize(Map.of("uri", gw.baseUrl, "header.x-api-key", apiKey), allocator);
    return namespace;
  }

  /** The table as Lance opens it through {@code namespace}. */
  private static Dataset open(LanceNamespace namespace, List<String> table) {
    return Dataset.open().allocator(allocator).namespaceClient(namespace).tableId(table).build();
  }

  private static void write(
      RestNamespace namespace, WriteParams.WriteMode mode, long first, int count) throws Exception {
    assertThat(LanceData.write(allocator, namespace, mode, first, count)).isPositive();
  }

  @Test
  void createAppendConcurrentAppendsAndTimeTravel() throws Exception {
    String key = gw.newTenant("lance");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);

    write(namespace, WriteParams.WriteMode.CREATE, 0, 10);
    write(namespace, WriteParams.WriteMode.APPEND, 10, 5);

    // The appenders' commits of version 3 wait behind a lock on the versions table, so all of
    // them are in flight at once: one wins, the others get 409 code 14 and commit again later.
    Metrics before = Metrics.scrape(gw);
    ExecutorService pool = Executors.newFixedThreadPool(APPENDERS);
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      List<CompletableFuture<Void>> appends = new ArrayList<>();
      for (int i = 0; i < APPENDERS; i++) {
        long first = 100 + i * 10L;
        appends.add(
            CompletableFuture.runAsync(
                () -> {
                  try {
                    write(namespace(key), WriteParams.WriteMode.APPEND, first, 3);
                  } catch (Exception e) {
                    throw new IllegalStateException(e);
                  }
                },
                pool));
      }
      lock.awaitQueued(APPENDERS - 1);
      lock.close();
      CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).join();
    } finally {
      pool.shutdown();
    }
    assertThat(Metrics.scrape(gw).since(before, Metrics.createOutcome("conflict")))
        .as("appenders that lost a race and committed again")
        .isGreaterThanOrEqualTo(APPENDERS - 1);

    long versions = 2 + APPENDERS;
    JsonNode listed =
        api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions");
    assertThat(listed).hasSize((int) versions);
    for (int i = 0; i < versions; i++) {
      assertThat(listed.get(i).get("version").longValue()).isEqualTo(i + 1);
    }

    try (Dataset latest = open(namespace, TABLE)) {
      assertThat(latest.version()).isEqualTo(versions);
      Set<Long> previous = new HashSet<>();
      for (long v = 1; v <= versions; v++) {
        try (Dataset past = latest.checkoutVersion(v)) {
          List<Long> ids = LanceData.ids(past);
          assertThat(ids)
              .as("ids at version %d hold every id of the version before", v)
              .containsAll(previous);
          Set<Long> added = new HashSet<>(ids);
          added.removeAll(previous);
          if (v == 1) {
            assertThat(added).as("version 1").isEqualTo(range(0, 10));
          } else if (v == 2) {
            assertThat(added).as("version 2").isEqualTo(range(10, 5));
          } else {
            assertThat(added).as("version %d adds one appender's three ids", v).hasSize(3);
            long firstId = added.stream().min(Long::compare).orElseThrow();
            assertThat(added).isEqualTo(range(firstId, 3));
          }
          previous = new HashSet<>(ids);
        }
      }
      Set<Long> everyAppender = new HashSet<>();
      for (int i = 0; i < APPENDERS; i++) {
        everyAppender.addAll(range(100 + i * 10L, 3));
      }
      assertThat(previous).containsAll(everyAppender).hasSize(10 + 5 + APPENDERS * 3);
    }

    Path location =
        Path.of(
            api.post("/v1/table/ns1%24events/describe", "{}").assertOk().get("location").asText());
    List<String> manifests;
    try (var files = Files.list(location.resolve("_versions"))) {
      manifests =
          files
              .map(file -> file.getFileName().toString())
              .filter(name -> name.contains(".manifest"))
              .sorted()
              .toList();
    }
    assertThat(manifests)
        .as("final manifests only, no staging ones")
        .hasSize((int) versions)
        .allMatch(name -> name.matches("\\d{20}\\.manifest"));
    for (JsonNode version : listed) {
      assertThat(Path.of("/" + version.get("manifest_path").asText())).exists();
    }
  }

  @Test
  void aStaleWriterOfADroppedTableCannotCommitIntoTheTableThatTookItsName() throws Exception {
    String key = gw.newTenant("stale");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);
    write(namespace, WriteParams.WriteMode.CREATE, 0, 4);
    String oldLocation =
        api.post("/v1/table/ns1%24events/describe", "{}").assertOk().get("location").asText();

    try (Dataset stale = open(namespace, TABLE)) {
      namespace.dropTable(new DropTableRequest().id(TABLE));
      write(namespace(key), WriteParams.WriteMode.CREATE, 100, 2);
      String newLocation =
          api.post("/v1/table/ns1%24events/describe", "{}").assertOk().get("location").asText();
      assertThat(newLocation).isNotEqualTo(oldLocation);

      // The stale writer commits a change on top of the version it read, through the namespace,
      // with its retries bounded (a Lance writer retries any refusal).
      Metrics before = Metrics.scrape(gw);
      try (Transaction change =
          new Transaction.Builder()
              .readVersion(stale.version())
              .operation(
                  UpdateConfig.builder()
                      .configUpdates(
                          UpdateMap.builder()
                              .updates(Map.of("stale", "true"))
                              .replace(false)
                              .build())
                      .build())
              .build()) {
        assertThatThrownBy(
                () ->
                    new CommitBuilder(stale)
                        .namespaceClient(namespace)
                        .tableId(TABLE)
                        .maxRetries(1)
                        .execute(change)
                        .close())
            .isInstanceOf(RuntimeException.class);
      }
      assertThat(Metrics.scrape(gw).since(before, Metrics.createOutcome("invalid")))
          .as("the stale commits were refused as paths outside the new table")
          .isPositive();
      assertThat(Metrics.scrape(gw).since(before, Metrics.createOutcome("created"))).isZero();
    }

    try (Dataset current = open(namespace, TABLE)) {
      assertThat(current.version()).isEqualTo(1);
      assertThat(LanceData.ids(current)).containsExactly(100L, 101L);
    }
    assertThat(api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }

  @Test
  void aRenamedTableKeepsItsHistoryForLanceWriters() throws Exception {
    String key = gw.newTenant("renamed");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    api.post("/v1/namespace/ns2/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);
    write(namespace, WriteParams.WriteMode.CREATE, 0, 3);
    write(namespace, WriteParams.WriteMode.APPEND, 3, 2);

    namespace.renameTable(
        new RenameTableRequest().id(TABLE).newTableName("moved").newNamespaceId(List.of("ns2")));
    List<String> moved = List.of("ns2", "moved");
    try (Dataset dataset = open(namespace, moved)) {
      assertThat(dataset.version()).isEqualTo(2);
      assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 4L);
      dataset.delete("id < 2");
    }
    try (Dataset dataset = open(namespace, moved)) {
      assertThat(dataset.version()).isEqualTo(3);
      assertThat(LanceData.ids(dataset)).containsExactly(2L, 3L, 4L);
      try (Dataset first = dataset.checkoutVersion(1)) {
        assertThat(LanceData.ids(first)).containsExactly(0L, 1L, 2L);
      }
    }
    api.post("/v1/table/ns1%24events/describe", "{}").assertError(404, 4);
  }

  @Test
  void tablesNamedInSeveralScriptsAreWrittenOpenedInEitherNormalizationRenamedAndDropped()
      throws Exception {
    String key = gw.newTenant("unicode");
    Api api = gw.api(key);
    api.post("/v1/namespace/donn%C3%A9es/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);
    // lance-core's JNI layer refuses characters outside the Basic Multilingual Plane (emoji) in
    // names by itself; LanceDbNodeIT and UnicodeNamesIT carry those.
    List<String> table = List.of("données", "数据 café");
    assertThat(LanceData.write(allocator, namespace, table, WriteParams.WriteMode.CREATE, 0, 3))
        .isEqualTo(1);
    assertThat(LanceData.write(allocator, namespace, table, WriteParams.WriteMode.APPEND, 3, 2))
        .isEqualTo(2);

    // The same names with e and a combining acute accent (NFD) open the same table.
    try (Dataset dataset = open(namespace, List.of("donne\u0301es", "数据 cafe\u0301"))) {
      assertThat(dataset.version()).isEqualTo(2);
      assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 4L);
    }
    String described = "/v1/table/donn%C3%A9es%24%E6%95%B0%E6%8D%AE%20caf%C3%A9";
    Path location =
        Path.of(api.post(described + "/describe", "{}").assertOk().get("location").asText());
    assertThat(location.getFileName().toString()).isEqualTo("数据 café.lance");
    try (var files = Files.list(location.resolve("_versions"))) {
      assertThat(files.map(file -> file.getFileName().toString()))
          .contains("18446744073709551614.manifest", "18446744073709551613.manifest")
          .noneMatch(name -> name.contains(".manifest-"));
    }

    List<String> renamed = List.of("données", "جدول");
    namespace.renameTable(new RenameTableRequest().id(table).newTableName("جدول"));
    assertThat(LanceData.write(allocator, namespace, renamed, WriteParams.WriteMode.APPEND, 5, 1))
        .isEqualTo(3);
    try (Dataset dataset = open(namespace, renamed)) {
      assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    }
    namespace.dropTable(new DropTableRequest().id(renamed));
    api.post("/v1/table/donn%C3%A9es%24%D8%AC%D8%AF%D9%88%D9%84/describe", "{}")
        .assertError(404, 4);
    api.post(described + "/describe", "{}").assertError(404, 4);
  }

  /** The versions of the PruneTableVersion events of {@code key}'s tenant, once there are n. */
  private static List<Long> pruneEventsWithin(String key, int n, long millis) throws Exception {
    long deadline = System.currentTimeMillis() + millis;
    while (true) {
      List<Long> versions = new ArrayList<>();
      try (java.sql.Connection db = gw.jdbc();
          java.sql.PreparedStatement query =
              db.prepareStatement(
                  "SELECT e.version[1] FROM audit_events e JOIN api_keys k"
                      + " ON k.tenant_id = e.tenant_id"
                      + " WHERE k.key_hash = encode(sha256(convert_to(?, 'UTF8')), 'hex')"
                      + " AND e.operation = 'PruneTableVersion'"
                      + " AND e.credential[1] = 'gateway-maintenance' ORDER BY 1")) {
        query.setString(1, key);
        try (java.sql.ResultSet rows = query.executeQuery()) {
          while (rows.next()) {
            versions.add(rows.getLong(1));
          }
        }
      }
      if (versions.size() >= n || System.currentTimeMillis() > deadline) {
        return versions;
      }
      Thread.sleep(50);
    }
  }

  @Test
  void versionsALanceCleanupRemovedLeaveTheCatalog() throws Exception {
    String key = gw.newTenant("cleanup");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);
    write(namespace, WriteParams.WriteMode.CREATE, 0, 2);
    write(namespace, WriteParams.WriteMode.APPEND, 2, 2);
    write(namespace, WriteParams.WriteMode.APPEND, 4, 2);
    assertThat(api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions"))
        .hasSize(3);

    Metrics before = Metrics.scrape(gw);
    try (Dataset dataset = open(namespace, TABLE)) {
      dataset.cleanupWithPolicy(
          CleanupPolicy.builder().withBeforeVersion(3).withDeleteUnverified(true).build());
    }
    assertThat(
            Metrics.scrape(gw)
                .since(
                    before,
                    "lvg_http_server_requests_seconds_count{method=\"POST\",route=\"/v1/table/:id/version/delete\",status=\"200\"}"))
        .as("Lance's cleanup does not tell the catalog")
        .isZero();
    JsonNode listed =
        api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions");
    assertThat(listed).extracting(v -> v.get("version").asLong()).containsExactly(3L);
    api.post("/v1/table/ns1%24events/version/describe", "{\"version\":1}").assertError(404, 11);
    // The read showed only what is there; the maintenance step it handed the rest to removes
    // those rows, each with its audit event.
    assertThat(pruneEventsWithin(key, 2, 10_000))
        .as("PruneTableVersion events of versions 1 and 2")
        .containsExactly(1L, 2L);
    try (Dataset dataset = open(namespace, TABLE)) {
      assertThat(LanceData.ids(dataset)).containsExactly(0L, 1L, 2L, 3L, 4L, 5L);
    }
    write(namespace, WriteParams.WriteMode.APPEND, 6, 1);
    assertThat(api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions"))
        .extracting(v -> v.get("version").asLong())
        .containsExactly(3L, 4L);
  }

  private static Set<Long> range(long first, int count) {
    Set<Long> ids = new HashSet<>();
    for (long id = first; id < first + count; id++) {
      ids.add(id);
    }
    return ids;
  }

  @Test
  void anotherTenantCanNeitherSeeNorCommitToTheTable() throws Exception {
    String owner = gw.newTenant("owner");
    gw.api(owner).post("/v1/namespace/ns1/create", "{}").assertOk();
    write(namespace(owner), WriteParams.WriteMode.CREATE, 0, 4);

    String intruderKey = gw.newTenant("intruder");
    RestNamespace intruder = namespace(intruderKey);
    Metrics before = Metrics.scrape(gw);
    assertThatThrownBy(() -> open(intruder, TABLE))
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("not found");
    assertThatThrownBy(() -> write(intruder, WriteParams.WriteMode.APPEND, 10, 2))
        .isInstanceOf(RuntimeException.class)
        .hasMessageContaining("not found");
    Metrics after = Metrics.scrape(gw);
    assertThat(after.since(before, Metrics.createOutcome("error"))).isZero();
    assertThat(
            after.since(
                before,
                "lvg_http_server_requests_seconds_count{method=\"POST\",route=\"/v1/table/:id/describe\",status=\"500\"}"))
        .isZero();
    gw.api(intruderKey).post("/v1/table/ns1%24events/describe", "{}").assertError(404, 1);
    try (Dataset mine = open(namespace(owner), TABLE)) {
      assertThat(mine.version()).isEqualTo(1);
      assertThat(mine.countRows()).isEqualTo(4);
    }
  }

  @Test
  void aRestoredVersionIsTheLatestLanceOpensAndWritesAfter() throws Exception {
    String key = gw.newTenant("lance-restore");
    Api api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    RestNamespace namespace = namespace(key);
    write(namespace, WriteParams.WriteMode.CREATE, 0, 4);
    write(namespace, WriteParams.WriteMode.APPEND, 4, 3);

    String transaction =
        api.post("/v1/table/ns1%24events/restore", "{\"version\":1}")
            .assertOk()
            .get("transaction_id")
            .asText();
    JsonNode restored =
        api.post("/v1/table/ns1%24events/version/describe", "{\"version\":3}")
            .assertOk()
            .get("version");
    assertThat(restored.get("manifest_path").asText()).matches(".*/_versions/\\d{20}\\.manifest");
    assertThat(
            api.post("/v1/transaction/" + transaction + "/describe", "{}")
                .assertOk()
                .get("properties")
                .get("version")
                .asText())
        .isEqualTo("3");

    try (Dataset latest = open(namespace, TABLE)) {
      assertThat(latest.version()).isEqualTo(3);
      assertThat(LanceData.ids(latest)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L);
      try (Dataset before = latest.checkoutVersion(2)) {
        assertThat(before.countRows()).as("the versions after the restored one stay").isEqualTo(7);
      }
    }
    write(namespace, WriteParams.WriteMode.APPEND, 100, 2);
    try (Dataset latest = open(namespace, TABLE)) {
      assertThat(latest.version()).isEqualTo(4);
      assertThat(LanceData.ids(latest)).containsExactlyInAnyOrder(0L, 1L, 2L, 3L, 100L, 101L);
    }
  }

  @Test
  void aReadOnlyKeyOpensAndReadsAndTheCommitCallLanceMakesIsRefused() throws Exception {
    String tenant = "readonly-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    String owner = gw.tenantWithKey(tenant);
    gw.api(owner).post("/v1/namespace/ns1/create", "{}").assertOk();
    write(namespace(owner), WriteParams.WriteMode.CREATE, 0, 4);
    String reader = gw.readKey(tenant);
    try (Dataset read = open(namespace(reader), TABLE)) {
      assertThat(read.countRows()).isEqualTo(4);
    }
    // Lance's commit loop retries a refused commit for minutes, so the refusal is checked on the
    // namespace call that loop makes, through the same client.
    assertThatThrownBy(
            () ->
                namespace(reader)
                    .createTableVersion(
                        new CreateTableVersionRequest()
                            .id(TABLE)
                            .version(2L)
                            .manifestPath("ns1/events.lance/_versions/2.manifest-reader")))
        .isInstanceOf(PermissionDeniedException.class)
        .hasMessageContaining("write");
    try (Dataset mine = open(namespace(owner), TABLE)) {
      assertThat(mine.version()).isEqualTo(1);
    }
  }
}
