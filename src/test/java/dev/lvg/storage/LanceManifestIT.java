package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.ManifestFiles;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.lance.LanceData;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.WriteParams;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * The transaction of manifests that real writers made: lance-core 7.0.0 here (V1 and V2 naming, a
 * create, an append and an index build), LanceDB for Node 0.31.0 in the files under {@code
 * src/test/resources/manifests/lancedb-0.31.0} (written by {@code src/test/node/lancedb-smoke/
 * manifests.mjs}); and files that are not manifests, refused with 400 code 13.
 */
class LanceManifestIT {

  private static Vertx vertx;
  private static LocalFileStore store;
  private static BufferAllocator allocator;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    store = new LocalFileStore(vertx);
    allocator = new RootAllocator();
  }

  @AfterAll
  static void stop() {
    allocator.close();
    vertx.close();
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static UUID transactionOf(Path manifest) throws Exception {
    String key = manifest.toString();
    return await(
        store
            .readTail(key, LanceManifest.TAIL)
            .compose(tail -> LanceManifest.transactionOf(store, key, tail)));
  }

  private static ApiException refusal(Path file) throws Exception {
    try {
      transactionOf(file);
    } catch (ExecutionException failed) {
      assertThat(failed.getCause()).isInstanceOf(ApiException.class);
      return (ApiException) failed.getCause();
    }
    throw new AssertionError(file + " was read as a manifest");
  }

  private static ArrowArrayStream rows(long first, int count) throws Exception {
    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
    Data.exportArrayStream(allocator, LanceData.rows(allocator, first, count), stream);
    return stream;
  }

  /** Creates a table, appends to it and builds an index: three versions, three transactions. */
  private static void writeThreeVersions(Path table, boolean v2Paths) throws Exception {
    for (WriteParams.WriteMode mode :
        List.of(WriteParams.WriteMode.CREATE, WriteParams.WriteMode.APPEND)) {
      WriteParams params =
          new WriteParams.Builder().withMode(mode).withEnableV2ManifestPaths(v2Paths).build();
      try (ArrowArrayStream stream = rows(mode == WriteParams.WriteMode.CREATE ? 0 : 10, 10);
          Dataset dataset = Dataset.create(allocator, stream, table.toString(), params)) {
        assertThat(dataset.version()).isPositive();
      }
    }
    try (Dataset dataset = Dataset.open().allocator(allocator).uri(table.toString()).build()) {
      dataset.createIndex(
          List.of("id"),
          IndexType.BTREE,
          Optional.of("by_id"),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(),
          true);
    }
  }

  /** Each manifest of the table names one of its transaction files, each a different one. */
  private static void eachManifestNamesItsTransaction(Path table, String namePattern)
      throws Exception {
    List<UUID> files;
    try (Stream<Path> listed = Files.list(table.resolve("_transactions"))) {
      files =
          listed
              .map(file -> file.getFileName().toString())
              .map(
                  name -> UUID.fromString(name.substring(name.indexOf('-') + 1, name.length() - 4)))
              .toList();
    }
    List<Path> manifests;
    try (Stream<Path> listed = Files.list(table.resolve("_versions"))) {
      manifests = listed.filter(file -> file.toString().endsWith(".manifest")).sorted().toList();
    }
    assertThat(manifests).hasSize(3);
    assertThat(manifests)
        .allSatisfy(m -> assertThat(m.getFileName().toString()).matches(namePattern));
    List<UUID> named = new java.util.ArrayList<>();
    for (Path manifest : manifests) {
      named.add(transactionOf(manifest));
    }
    assertThat(named).doesNotContainNull().doesNotHaveDuplicates();
    assertThat(files).containsExactlyInAnyOrderElementsOf(named);
  }

  @Test
  void lanceCoreManifestsWithV2NamesAndAnIndexNameTheirTransactions(@TempDir Path dir)
      throws Exception {
    Path table = dir.resolve("v2.lance");
    writeThreeVersions(table, true);
    eachManifestNamesItsTransaction(table, "\\d{20}\\.manifest");
  }

  @Test
  void lanceCoreManifestsWithV1NamesAndAnIndexNameTheirTransactions(@TempDir Path dir)
      throws Exception {
    Path table = dir.resolve("v1.lance");
    writeThreeVersions(table, false);
    eachManifestNamesItsTransaction(table, "\\d{1,3}\\.manifest");
  }

  @Test
  void lanceDbNodeManifestsNameTheirTransactions() throws Exception {
    Path fixtures = Path.of("src/test/resources/manifests/lancedb-0.31.0");
    List<String> expected = Files.readAllLines(fixtures.resolve("transactions.txt"));
    assertThat(expected).isNotEmpty();
    for (String line : expected) {
      String[] fields = line.split(" ");
      assertThat(transactionOf(fixtures.resolve(fields[0])))
          .as(fields[0])
          .isEqualTo(UUID.fromString(fields[1]));
    }
  }

  @Test
  void aManifestLargerThanOneReadIsReadInTwo(@TempDir Path dir) throws Exception {
    UUID transaction = UUID.randomUUID();
    Path manifest = dir.resolve("big.manifest");
    Files.write(
        manifest,
        ManifestFiles.manifest(
            new byte[100], LanceManifest.TAIL * 2, "1-" + transaction + ".txn", null));
    assertThat(transactionOf(manifest)).isEqualTo(transaction);
  }

  @Test
  void anInlineTransactionIsReadFromItsSection(@TempDir Path dir) throws Exception {
    UUID transaction = UUID.randomUUID();
    Path manifest = dir.resolve("inline.manifest");
    Files.write(manifest, ManifestFiles.manifest(new byte[10], "", transaction));
    assertThat(transactionOf(manifest)).isEqualTo(transaction);
  }

  @Test
  void aManifestWithoutATransactionNamesNone(@TempDir Path dir) throws Exception {
    Path manifest = dir.resolve("none.manifest");
    Files.write(manifest, ManifestFiles.manifest(new byte[10], null, null));
    assertThat(transactionOf(manifest)).isNull();
  }

  @Test
  void filesThatAreNotManifestsAreRefusedAsInvalidInput(@TempDir Path dir) throws Exception {
    byte[] good = ManifestFiles.manifest(new byte[40], "1-" + UUID.randomUUID() + ".txn", null);
    List<byte[]> broken =
        List.of(
            new byte[0],
            "LANC".getBytes(),
            Arrays.copyOf(good, good.length - 1),
            withFooterPosition(good, -5),
            withFooterPosition(good, good.length),
            withFooterPosition(good, 3),
            withFooterPosition(good, 0),
            ManifestFiles.raw(new byte[] {(byte) 0xff, (byte) 0xff, (byte) 0xff}),
            ManifestFiles.raw(new byte[] {0x62, 0x7f}));
    for (int i = 0; i < broken.size(); i++) {
      Path file = dir.resolve("broken-" + i);
      Files.write(file, broken.get(i));
      assertThat(refusal(file).errorCode())
          .as("broken file %d", i)
          .isEqualTo(ErrorCode.INVALID_INPUT);
    }
    Path empty = dir.resolve("a-directory");
    Files.createDirectory(empty);
    try {
      transactionOf(empty);
      throw new AssertionError("a directory was read");
    } catch (ExecutionException failed) {
      assertThat(failed.getCause()).isInstanceOf(ObjectStore.NoSuchObjectException.class);
    }
  }

  private static byte[] withFooterPosition(byte[] manifest, long position) {
    byte[] copy = manifest.clone();
    ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putLong(copy.length - 16, position);
    return copy;
  }
}
