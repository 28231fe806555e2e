package dev.lvg.lance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.namespace.RestNamespace;

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

    ExecutorService pool = Executors.newFixedThreadPool(APPENDERS);
    try {
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
      CompletableFuture.allOf(appends.toArray(CompletableFuture[]::new)).join();
    } finally {
      pool.shutdown();
    }

    long versions = 2 + APPENDERS;
    JsonNode listed =
        api.post("/v1/table/ns1%24events/version/list", null).assertOk().get("versions");
    assertThat(listed).hasSize((int) versions);
    for (int i = 0; i < versions; i++) {
      assertThat(listed.get(i).get("version").longValue()).isEqualTo(i + 1);
    }

    try (Dataset latest =
        Dataset.open().allocator(allocator).namespaceClient(namespace).tableId(TABLE).build()) {
      assertThat(latest.version()).isEqualTo(versions);
      assertThat(latest.countRows()).isEqualTo(10 + 5 + APPENDERS * 3);
      for (long v = 1; v <= versions; v++) {
        try (Dataset past = latest.checkoutVersion(v)) {
          long expectedRows = v == 1 ? 10 : 15 + 3 * (v - 2);
          assertThat(past.countRows()).as("rows at version %d", v).isEqualTo(expectedRows);
        }
      }
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
  void anotherTenantCanNeitherSeeNorCommitToTheTable() throws Exception {
    String owner = gw.newTenant("owner");
    gw.api(owner).post("/v1/namespace/ns1/create", "{}").assertOk();
    write(namespace(owner), WriteParams.WriteMode.CREATE, 0, 4);

    String intruderKey = gw.newTenant("intruder");
    RestNamespace intruder = namespace(intruderKey);
    assertThatThrownBy(
            () ->
                Dataset.open()
                    .allocator(allocator)
                    .namespaceClient(intruder)
                    .tableId(TABLE)
                    .build())
        .isInstanceOf(RuntimeException.class);
    assertThatThrownBy(() -> write(intruder, WriteParams.WriteMode.APPEND, 10, 2))
        .isInstanceOf(RuntimeException.class);
    try (Dataset mine =
        Dataset.open()
            .allocator(allocator)
            .namespaceClient(namespace(owner))
            .tableId(TABLE)
            .build()) {
      assertThat(mine.version()).isEqualTo(1);
      assertThat(mine.countRows()).isEqualTo(4);
    }
  }
}
