package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.net.URLEncoder;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * Names in several scripts (accents, CJK, emoji, combining marks, right to left) through every
 * operation that takes one, with finalization on the local file system and on S3; and names that
 * differ only by Unicode normalization, which are one name (NFC).
 */
class UnicodeNamesIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String OUTER = "données";
  private static final String INNER = "数据";
  private static final String CAFE = "café";
  private static final String NAIVE_DECOMPOSED = "nai\u0308ve";
  private static final String NAIVE = "naïve";
  private static final List<String> TABLES =
      List.of(CAFE, "数据表", "\uD83E\uDD86 ducks", "جدول", "Ἀθῆναι", NAIVE);
  private static final String TAG = "étiquette-\uD83C\uDFF7";
  private static final String BRANCH = "ветка";
  private static final String RENAMED = "קפה";

  private static S3Server s3;
  private static TestGateway onS3;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Server();
    Map<String, String> settings = new HashMap<>(s3.gatewaySettings("unicode"));
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    onS3 = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() throws Exception {
    onS3.gateway.close();
    s3.close();
  }

  /** Where staging manifests are put and final ones looked for. */
  private interface Storage {
    /** Writes {@code bytes} at {@code relative} under {@code location}; answers manifest_path. */
    String stage(String location, String relative, byte[] bytes) throws Exception;

    boolean exists(String location, String relative);
  }

  private static final Storage DISK =
      new Storage() {
        @Override
        public String stage(String location, String relative, byte[] bytes) throws Exception {
          Path file = Path.of(location, relative);
          Files.createDirectories(file.getParent());
          Files.write(file, bytes);
          return file.toString().substring(1);
        }

        @Override
        public boolean exists(String location, String relative) {
          return Files.exists(Path.of(location, relative));
        }
      };

  private static final Storage S3 =
      new Storage() {
        @Override
        public String stage(String location, String relative, byte[] bytes) {
          String key = key(location) + "/" + relative;
          s3.client.putObject(
              put -> put.bucket(S3Server.BUCKET).key(key), RequestBody.fromBytes(bytes));
          return key;
        }

        @Override
        public boolean exists(String location, String relative) {
          String key = key(location) + "/" + relative;
          return s3
              .client
              .listObjectsV2(list -> list.bucket(S3Server.BUCKET).prefix(key))
              .contents()
              .stream()
              .anyMatch(object -> object.key().equals(key));
        }

        private String key(String location) {
          assertThat(location).startsWith("s3://" + S3Server.BUCKET + "/");
          return location.substring(("s3://" + S3Server.BUCKET + "/").length());
        }
      };

  /** True when this JVM can give a file a non-ASCII name (not so under the POSIX locale). */
  private static boolean namesFilesInUtf8() {
    String encoding = System.getProperty("sun.jnu.encoding");
    return encoding != null && Charset.forName(encoding).equals(StandardCharsets.UTF_8);
  }

  @Test
  void namesInManyScriptsThroughEveryOperationOnS3() throws Exception {
    everyOperation(onS3, S3);
  }

  @Test
  void namesInManyScriptsThroughEveryOperationOnTheLocalFileSystem() throws Exception {
    TestGateway gw = TestGateway.finalizing();
    if (namesFilesInUtf8()) {
      everyOperation(gw, DISK);
      return;
    }
    // A JVM that cannot name the file (the gateway's launcher runs itself again in UTF-8, so only
    // an embedding can be here): the request is refused as the client's, and no outage is raised.
    Api api = gw.api(gw.newTenant("posix"));
    api.post("/v1/namespace/" + id(OUTER) + "/create", "{}").assertOk();
    String location =
        api.post("/v1/table/" + id(OUTER, CAFE) + "/declare", "{}")
            .assertOk()
            .get("location")
            .asText();
    Api.Response refused =
        api.post(
                "/v1/table/" + id(OUTER, CAFE) + "/version/create",
                create(1, location.substring(1) + "/_versions/1.manifest-x", null))
            .assertError(400, 13);
    assertThat(refused.json().get("detail").asText())
        .contains(System.getProperty("sun.jnu.encoding"));
    assertThat(Metrics.scrape(gw).value("lvg_dependency_outage")).isEqualTo(0.0);
  }

  private static void everyOperation(TestGateway gw, Storage storage) throws Exception {
    Api api = gw.api(gw.newTenant("unicode"));
    api.post("/v1/namespace/" + id(OUTER) + "/create", "{}").assertOk();
    api.post("/v1/namespace/" + id(OUTER, INNER) + "/create", "{}").assertOk();
    assertThat(api.get("/v1/namespace/" + id(OUTER) + "/list").assertOk().get("namespaces"))
        .extracting(JsonNode::asText)
        .containsExactly(INNER);

    Map<String, String> locations = new HashMap<>();
    for (String table : TABLES) {
      String sent = table.equals(NAIVE) ? NAIVE_DECOMPOSED : table;
      String location =
          api.post("/v1/table/" + id(OUTER, INNER, sent) + "/declare", "{}")
              .assertOk()
              .get("location")
              .asText();
      assertThat(location).endsWith("/" + OUTER + "/" + INNER + "/" + table + ".lance");
      locations.put(table, location);
      JsonNode version = commit(api, storage, location, List.of(OUTER, INNER, sent), 1, null);
      assertThat(version.get("manifest_path").asText())
          .endsWith("/" + table + ".lance/_versions/1.manifest");
      assertThat(storage.exists(location, "_versions/1.manifest")).as(table).isTrue();
      assertThat(
              api.post("/v1/table/" + id(OUTER, INNER, table) + "/version/list", "{}")
                  .assertOk()
                  .get("versions"))
          .extracting(v -> v.get("version").asLong())
          .containsExactly(1L);
    }
    assertThat(tables(api)).containsExactlyInAnyOrderElementsOf(TABLES);

    // A tag and a branch, named in two more scripts, on the café table.
    String cafe = locations.get(CAFE);
    String table = "/v1/table/" + id(OUTER, INNER, CAFE);
    api.post(table + "/tags/create", json(Map.of("tag", TAG, "version", 1))).assertOk();
    assertThat(storage.exists(cafe, "_refs/tags/" + TAG + ".json")).isTrue();
    assertThat(api.post(table + "/tags/list", "{}").assertOk().get("tags").fieldNames())
        .toIterable()
        .containsExactly(TAG);
    assertThat(
            api.post(table + "/tags/version", json(Map.of("tag", TAG)))
                .assertOk()
                .get("version")
                .asLong())
        .isEqualTo(1);
    api.post(table + "/branches/create", json(Map.of("name", BRANCH, "from_version", 1)))
        .assertOk();
    commit(api, storage, cafe + "/tree/" + BRANCH, List.of(OUTER, INNER, CAFE), 2, BRANCH);
    assertThat(storage.exists(cafe, "tree/" + BRANCH + "/_versions/2.manifest")).isTrue();
    assertThat(
            api.post(table + "/version/list?branch=" + encode(BRANCH), null)
                .assertOk()
                .get("versions"))
        .extracting(v -> v.get("version").asLong())
        .containsExactly(2L);
    assertThat(api.post(table + "/branches/list", null).assertOk().get("branches").fieldNames())
        .toIterable()
        .containsExactly(BRANCH);

    // Rename to a right-to-left name: the table keeps its location and history.
    api.post(table + "/rename", json(Map.of("new_table_name", RENAMED))).assertOk();
    api.post(table + "/describe", "{}").assertError(404, 4);
    String renamed = "/v1/table/" + id(OUTER, INNER, RENAMED);
    assertThat(api.post(renamed + "/describe", "{}").assertOk().get("location").asText())
        .isEqualTo(cafe);
    assertThat(api.post(renamed + "/version/list", "{}").assertOk().get("versions")).hasSize(1);

    // Drop every table, then both namespaces.
    List<String> left = new ArrayList<>(TABLES);
    left.set(left.indexOf(CAFE), RENAMED);
    assertThat(tables(api)).containsExactlyInAnyOrderElementsOf(left);
    for (String name : left) {
      api.post("/v1/table/" + id(OUTER, INNER, name) + "/drop", "{}").assertOk();
    }
    assertThat(tables(api)).isEmpty();
    api.post("/v1/namespace/" + id(OUTER, INNER) + "/drop", "{}").assertOk();
    api.post("/v1/namespace/" + id(OUTER) + "/drop", "{}").assertOk();
    api.post("/v1/namespace/" + id(OUTER) + "/describe", "{}").assertError(404, 1);
  }

  @Test
  void namesThatDifferOnlyByNormalizationAreOneName() throws Exception {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("nfc"));
    String decomposedNamespace = "donne\u0301es";
    api.post("/v1/namespace/" + id(decomposedNamespace) + "/create", "{}").assertOk();
    api.post("/v1/namespace/" + id(OUTER) + "/create", "{}").assertError(409, 2);
    assertThat(api.get("/v1/namespace/%24/list").assertOk().get("namespaces"))
        .extracting(JsonNode::asText)
        .containsExactly(OUTER);

    String location =
        api.post("/v1/table/" + id(OUTER, NAIVE_DECOMPOSED) + "/declare", "{}")
            .assertOk()
            .get("location")
            .asText();
    assertThat(location).endsWith("/" + OUTER + "/" + NAIVE + ".lance");
    api.post("/v1/table/" + id(OUTER, NAIVE) + "/declare", "{}").assertError(409, 5);
    assertThat(
            api.post("/v1/table/" + id(OUTER, NAIVE) + "/describe", "{}")
                .assertOk()
                .get("location")
                .asText())
        .isEqualTo(location);
    // The id in the body may be spelled either way too.
    api.post(
            "/v1/table/" + id(OUTER, NAIVE) + "/describe",
            json(Map.of("id", List.of(decomposedNamespace, NAIVE_DECOMPOSED))))
        .assertOk();
    api.post(
            "/v1/table/" + id(OUTER, NAIVE) + "/describe",
            json(Map.of("id", List.of(OUTER, "other"))))
        .assertError(400, 13);
    assertThat(tables(api, OUTER)).containsExactly(NAIVE);

    // In a batch, and as a rename target: the decomposed spelling finds the name it equals.
    api.post(
            "/v1/table/batch-commit",
            json(
                Map.of(
                    "operations",
                    List.of(Map.of("declare_table", Map.of("id", List.of(OUTER, "cafe\u0301")))))))
        .assertOk();
    assertThat(api.post("/v1/table/" + id(OUTER, CAFE) + "/exists", "{}").status()).isEqualTo(200);
    api.post(
            "/v1/table/" + id(OUTER, NAIVE) + "/rename",
            json(Map.of("new_table_name", "cafe\u0301")))
        .assertError(409, 5);
  }

  @Test
  void aPlusInThePathIsASpaceAsGeneratedClientsEncodeItAndAnEncodedPlusIsAPlus() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("plus"));
    api.post("/v1/namespace/my+ns/create", "{}").assertOk();
    api.post("/v1/table/my%20ns%24a+b/declare", "{}").assertOk();
    api.post("/v1/table/my+ns%24a%2Bb/declare", "{}").assertOk();
    assertThat(tables(api, "my ns")).containsExactlyInAnyOrder("a b", "a+b");
    api.post("/v1/table/my+ns%24a+b/describe", json(Map.of("id", List.of("my ns", "a b"))))
        .assertOk();
  }

  @Test
  void namesTooLongForAFileSystemOrNotValidUnicodeAreRefused() {
    TestGateway gw = TestGateway.shared();
    Api api = gw.api(gw.newTenant("bad-names"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    // 67 CJK characters are 201 bytes of UTF-8; 66 are 198.
    api.post("/v1/table/" + id("ns", "数".repeat(67)) + "/declare", "{}").assertError(400, 13);
    api.post("/v1/table/" + id("ns", "数".repeat(66)) + "/declare", "{}").assertOk();
    api.post(
            "/v1/table/batch-commit",
            "{\"operations\":[{\"declare_table\":{\"id\":[\"ns\",\"x\\ud800\"]}}]}")
        .assertError(400, 13);
    api.post(
            "/v1/table/" + id("ns", "数".repeat(66)) + "/rename", "{\"new_table_name\":\"\\udc00\"}")
        .assertError(400, 13);
  }

  private static JsonNode commit(
      Api api,
      Storage storage,
      String chainLocation,
      List<String> tableId,
      long version,
      String branch)
      throws Exception {
    String name = tableId.get(tableId.size() - 1);
    String path =
        storage.stage(
            chainLocation,
            "_versions/" + version + ".manifest-" + UUID.randomUUID(),
            ManifestFiles.of(name + " version " + version));
    return api.post(
            "/v1/table/" + id(tableId.toArray(String[]::new)) + "/version/create",
            create(version, path, branch))
        .assertOk()
        .get("version");
  }

  private static String create(long version, String manifestPath, String branch) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("version", version).put("manifest_path", manifestPath).put("naming_scheme", "V1");
    if (branch != null) {
      body.put("branch", branch);
    }
    return body.toString();
  }

  private static List<String> tables(Api api) {
    return tables(api, OUTER, INNER);
  }

  private static List<String> tables(Api api, String... namespace) {
    List<String> names = new ArrayList<>();
    api.get("/v1/namespace/" + id(namespace) + "/table/list")
        .assertOk()
        .get("tables")
        .forEach(name -> names.add(name.asText()));
    return names;
  }

  private static String json(Object value) {
    try {
      return MAPPER.writeValueAsString(value);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The id in a path: the parts percent-encoded as UTF-8, joined by an encoded {@code $}. */
  static String id(String... parts) {
    return Stream.of(parts).map(UnicodeNamesIT::encode).collect(Collectors.joining("%24"));
  }

  private static String encode(String text) {
    return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
