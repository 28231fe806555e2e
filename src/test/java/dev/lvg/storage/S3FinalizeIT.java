package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import dev.lvg.version.TableVersion;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Finalization on an S3-compatible store (a real s3proxy server started by the test). */
class S3FinalizeIT {
  private static final String CREATE = "/v1/table/ns%24t/version/create";
  private static S3Server s3;
  private static TestGateway gw;

  private Api api;
  private String tableKey;

  @BeforeAll
  static void start() throws Exception {
    s3 = new S3Server();
    Map<String, String> settings = new HashMap<>(s3.gatewaySettings("tables"));
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    gw = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() throws Exception {
    gw.gateway.close();
    s3.close();
  }

  @BeforeEach
  void declare() {
    api = gw.api(gw.newTenant("s3"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    JsonNode declared = api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    String location = declared.get("location").asText();
    assertThat(location).startsWith("s3://" + S3Server.BUCKET + "/tables/").endsWith("/ns/t.lance");
    JsonNode options = declared.get("storage_options");
    assertThat(options.get("aws_endpoint").asText()).isEqualTo(s3.endpoint);
    assertNoSecret(options);
    assertThat(options.get("allow_http").asText()).isEqualTo("true");
    assertThat(options.get("aws_virtual_hosted_style_request").asText()).isEqualTo("false");
    tableKey = location.substring(("s3://" + S3Server.BUCKET + "/").length());
    JsonNode described = api.post("/v1/table/ns%24t/describe", "{}").assertOk();
    assertThat(described.get("location").asText()).isEqualTo(location);
    assertThat(described.get("storage_options")).isEqualTo(options);
  }

  /** Nothing in {@code options} is a credential, or the value of the gateway's own keys. */
  static void assertNoSecret(JsonNode options) {
    assertThat(options.fieldNames())
        .toIterable()
        .as("storage_options without vending or shared keys")
        .noneMatch(
            name -> name.contains("key") || name.contains("token") || name.contains("secret"));
    assertThat(options.toString())
        .doesNotContain(S3Server.ACCESS_KEY)
        .doesNotContain(S3Server.SECRET_KEY);
  }

  @Test
  void aDeclareInsideABatchCommitHandsOutNoSecretEither() {
    JsonNode answer =
        api.post(
                "/v1/table/batch-commit",
                "{\"operations\":[{\"declare_table\":{\"id\":[\"ns\",\"batched\"]}}]}")
            .assertOk();
    JsonNode declared = answer.get("results").get(0).get("declare_table");
    assertThat(declared.get("location").asText()).endsWith("/ns/batched.lance");
    assertThat(declared.get("storage_options").get("aws_endpoint").asText()).isEqualTo(s3.endpoint);
    assertNoSecret(declared.get("storage_options"));
  }

  @Test
  void aCredentialServiceThatFailsAnswers503AndCountsAsAnOutage() throws Exception {
    // s3proxy serves S3 but not STS: every AssumeRole fails.
    Map<String, String> settings = new HashMap<>(s3.gatewaySettings("vending"));
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_STS_ROLE_ARN", "arn:aws:iam::000000000000:role/lance-writers");
    TestGateway vending = TestGateway.dedicated(settings);
    try {
      Api writer = vending.api(vending.newTenant("sts-down"));
      writer.post("/v1/namespace/ns/create", "{}").assertOk();
      writer.post("/v1/table/ns%24t/declare", "{}").assertError(503, 17);
      writer.post("/v1/table/ns%24t/describe", "{}").assertError(404, 4);
      assertThat(dev.lvg.Metrics.scrape(vending).value("lvg_dependency_outage")).isEqualTo(1.0);
    } finally {
      vending.gateway.close();
    }
  }

  @Test
  void theGatewaysOwnKeysAreSharedOnlyWhenAnOperatorAsksAndThenALanceWriterUsesThem()
      throws Exception {
    Map<String, String> settings = new HashMap<>(s3.gatewaySettings("shared"));
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_S3_SHARE_STATIC_KEYS", "true");
    TestGateway sidecar = TestGateway.dedicated(settings);
    try {
      Api single = sidecar.api(sidecar.newTenant("sidecar"));
      single.post("/v1/namespace/ns/create", "{}").assertOk();
      JsonNode options =
          single.post("/v1/table/ns%24t/declare", "{}").assertOk().get("storage_options");
      assertThat(options.get("aws_access_key_id").asText()).isEqualTo(S3Server.ACCESS_KEY);
      assertThat(options.get("aws_secret_access_key").asText()).isEqualTo(S3Server.SECRET_KEY);
      lanceWritesAppendsAndTimeTravels(
          sidecar, sidecar.newTenant("sidecar-lance"), s3.client, S3Server.BUCKET);
    } finally {
      sidecar.gateway.close();
    }
  }

  private String stage(String name, String content) {
    String key = tableKey + "/_versions/" + name;
    s3.client.putObject(
        put -> put.bucket(S3Server.BUCKET).key(key),
        RequestBody.fromBytes(ManifestFiles.of(content)));
    return key;
  }

  private String read(String key) {
    return ManifestFiles.textOf(
        s3.client.getObjectAsBytes(get -> get.bucket(S3Server.BUCKET).key(key)).asByteArray());
  }

  private boolean exists(String key) {
    try {
      s3.client.headObject(head -> head.bucket(S3Server.BUCKET).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static String create(long version, String path) {
    return "{\"version\":"
        + version
        + ",\"manifest_path\":\""
        + path
        + "\",\"naming_scheme\":\"V2\"}";
  }

  @Test
  void aLanceTransactionIsCommittedOnceOnS3EvenFromAManifestLargerThanOneRead() {
    UUID transaction = UUID.randomUUID();
    String first = tableKey + "/_versions/18446744073709551614.manifest-t1";
    byte[] large = ManifestFiles.manifest(new byte[10], 200_000, "0-" + transaction + ".txn", null);
    s3.client.putObject(
        put -> put.bucket(S3Server.BUCKET).key(first), RequestBody.fromBytes(large));
    JsonNode created = api.post(CREATE, create(1, first)).assertOk();
    assertThat(created.get("version").get("metadata").get(TableVersion.LANCE_TRANSACTION).asText())
        .isEqualTo(transaction.toString());

    String again = tableKey + "/_versions/18446744073709551613.manifest-t2";
    byte[] rebased = ManifestFiles.manifest(new byte[10], "1-" + transaction + ".txn", null);
    s3.client.putObject(
        put -> put.bucket(S3Server.BUCKET).key(again), RequestBody.fromBytes(rebased));
    assertThat(api.post(CREATE, create(2, again)).assertError(409, 14).json().get("error").asText())
        .isEqualTo("transaction " + transaction + " is already committed as version 1");
    assertThat(exists(tableKey + "/_versions/18446744073709551613.manifest")).isFalse();
  }

  @Test
  void stagingBecomesTheFinalObjectAndARetryGetsTheSameRow() {
    String staging = stage("18446744073709551614.manifest-a", "s3 manifest");
    JsonNode first = api.post(CREATE, create(1, staging)).assertOk();
    String finalKey = tableKey + "/_versions/18446744073709551614.manifest";
    assertThat(first.get("version").get("manifest_path").asText()).isEqualTo(finalKey);
    assertThat(first.get("version").get("manifest_size").longValue())
        .isEqualTo(ManifestFiles.of("s3 manifest").length);
    assertThat(first.get("version").get("e_tag").asText()).isNotBlank();
    assertThat(read(finalKey)).isEqualTo("s3 manifest");
    assertThat(exists(staging)).isFalse();
    assertThat(api.post(CREATE, create(1, staging)).assertOk()).isEqualTo(first);
  }

  @Test
  void aForeignFinalObjectIsNeverOverwritten() {
    String finalKey = tableKey + "/_versions/18446744073709551614.manifest";
    s3.client.putObject(
        put -> put.bucket(S3Server.BUCKET).key(finalKey),
        RequestBody.fromBytes(ManifestFiles.of("foreign")));
    api.post(CREATE, create(1, stage("18446744073709551614.manifest-b", "mine")))
        .assertError(409, 14);
    assertThat(read(finalKey)).isEqualTo("foreign");
    api.post(CREATE, create(1, tableKey + "/_versions/18446744073709551614.manifest-missing"))
        .assertError(400, 13);
    api.post(CREATE, create(1, "other/_versions/1.manifest-x")).assertError(400, 13);
  }

  @Test
  void thirtyIdenticalRacersLeaveOneRowAndOneObject() throws Exception {
    String staging = stage("18446744073709551614.manifest-race", "raced on s3");
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int i = 0; i < 30; i++) {
        calls.add(api.postAsync(CREATE, create(1, staging)));
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(29);
    }
    Set<String> transactions = new HashSet<>();
    calls.forEach(call -> transactions.add(call.join().assertOk().get("transaction_id").asText()));
    assertThat(transactions).hasSize(1);
    assertThat(api.post("/v1/table/ns%24t/version/list", null).assertOk().get("versions"))
        .hasSize(1);
    List<String> keys =
        s3
            .client
            .listObjectsV2(list -> list.bucket(S3Server.BUCKET).prefix(tableKey + "/"))
            .contents()
            .stream()
            .map(object -> object.key())
            .toList();
    assertThat(keys).containsExactly(tableKey + "/_versions/18446744073709551614.manifest");
  }

  @Test
  void theStoreNeverOverwritesAndRemovesOnlyAbandonedFinals() {
    Vertx vertx = Vertx.vertx();
    try {
      S3Store store = new S3Store(vertx, s3.asyncClient(), S3Server.BUCKET);
      String finalKey = tableKey + "/_versions/7.manifest";
      String first = stage("7.manifest-first", "first");
      String second = stage("7.manifest-second", "second");
      assertThat(join(store.createFinal(first, finalKey, "attempt-1")).outcome())
          .isEqualTo(ObjectStore.CopyOutcome.CREATED);
      assertThat(join(store.createFinal(second, finalKey, "attempt-2")).outcome())
          .isEqualTo(ObjectStore.CopyOutcome.OTHER_BYTES);
      assertThat(join(store.createFinal(first, finalKey, "attempt-3")).outcome())
          .isEqualTo(ObjectStore.CopyOutcome.SAME);
      assertThat(read(finalKey)).isEqualTo("first");
      assertThat(join(store.removeAbandoned(finalKey))).isTrue();
      assertThat(exists(finalKey)).isFalse();

      String foreign = tableKey + "/_versions/8.manifest";
      s3.client.putObject(
          put -> put.bucket(S3Server.BUCKET).key(foreign),
          RequestBody.fromBytes(ManifestFiles.of("foreign")));
      assertThat(join(store.removeAbandoned(foreign))).isFalse();
      assertThat(read(foreign)).isEqualTo("foreign");
      assertThatThrownBy(() -> join(store.read(tableKey + "/absent")))
          .hasCauseInstanceOf(ObjectStore.NoSuchObjectException.class);
    } finally {
      vertx.close();
    }
  }

  private static <T> T join(io.vertx.core.Future<T> future) {
    return future.toCompletionStage().toCompletableFuture().join();
  }

  /**
   * A Lance writer given only the gateway's URL and {@code key} creates a table in S3, appends and
   * travels back to version 1; the final manifests are where the gateway put them.
   */
  static void lanceWritesAppendsAndTimeTravels(
      TestGateway gw, String key, software.amazon.awssdk.services.s3.S3Client client, String bucket)
      throws Exception {
    gw.api(key).post("/v1/namespace/ns1/create", "{}").assertOk();
    try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
      var namespace = new org.lance.namespace.RestNamespace();
      namespace.initialize(Map.of("uri", gw.baseUrl, "header.x-api-key", key), allocator);
      dev.lvg.lance.LanceData.write(
          allocator, namespace, org.lance.WriteParams.WriteMode.CREATE, 0, 6);
      dev.lvg.lance.LanceData.write(
          allocator, namespace, org.lance.WriteParams.WriteMode.APPEND, 6, 4);
      try (var latest =
          org.lance.Dataset.open()
              .allocator(allocator)
              .namespaceClient(namespace)
              .tableId(dev.lvg.lance.LanceData.TABLE)
              .build()) {
        assertThat(latest.version()).isEqualTo(2);
        assertThat(latest.countRows()).isEqualTo(10);
        try (var first = latest.checkoutVersion(1)) {
          assertThat(first.countRows()).isEqualTo(6);
        }
      }
    }
    String location =
        gw.api(key)
            .post("/v1/table/ns1%24events/describe", "{}")
            .assertOk()
            .get("location")
            .asText();
    String prefix = location.substring(("s3://" + bucket + "/").length()) + "/_versions/";
    List<String> manifests =
        client.listObjectsV2(list -> list.bucket(bucket).prefix(prefix)).contents().stream()
            .map(object -> object.key().substring(prefix.length()))
            .filter(name -> name.contains(".manifest"))
            .sorted()
            .toList();
    assertThat(manifests)
        .containsExactly("18446744073709551613.manifest", "18446744073709551614.manifest");
  }

  @Test
  void aDroppedTablesObjectsAreDeletedAndNoOtherTablesAre() throws Exception {
    api.post(CREATE, create(1, stage("1.manifest-a", "t one"))).assertOk();
    String keptKey =
        api.post("/v1/table/ns%24tx/declare", "{}")
            .assertOk()
            .get("location")
            .asText()
            .substring(("s3://" + S3Server.BUCKET + "/").length());
    // A neighbour whose name starts like the dropped table's: a prefix without the slash would
    // take it too.
    assertThat(keptKey).endsWith("/ns/tx.lance");
    s3.client.putObject(
        put -> put.bucket(S3Server.BUCKET).key(keptKey + "/data/rows.lance"),
        RequestBody.fromString("rows"));
    for (int i = 0; i < 30; i++) {
      String key = tableKey + "/data/part-" + i + ".lance";
      s3.client.putObject(
          put -> put.bucket(S3Server.BUCKET).key(key), RequestBody.fromString("part"));
    }

    api.post("/v1/table/ns%24t/drop", null).assertOk();
    api.post("/v1/table/ns%24t/describe", "{}").assertError(404, 4);
    long deadline = System.currentTimeMillis() + 20_000;
    while (!objectsUnder(tableKey + "/").isEmpty() && System.currentTimeMillis() < deadline) {
      Thread.sleep(50);
    }
    assertThat(objectsUnder(tableKey + "/")).as("objects of the dropped table").isEmpty();
    assertThat(objectsUnder(keptKey + "/")).containsExactly(keptKey + "/data/rows.lance");
  }

  @Test
  void tagsAreObjectsUnderTheTablesRefs() {
    api.post(CREATE, create(1, stage("1.manifest-t", "tagged version"))).assertOk();
    api.post("/v1/table/ns%24t/tags/create", "{\"tag\":\"release\",\"version\":1}").assertOk();
    api.post("/v1/table/ns%24t/tags/create", "{\"tag\":\"release\",\"version\":1}")
        .assertError(409, 9);
    String tagKey = tableKey + "/_refs/tags/release.json";
    assertThat(
            s3.client
                .getObjectAsBytes(get -> get.bucket(S3Server.BUCKET).key(tagKey))
                .asUtf8String())
        .contains("\"version\"")
        .contains("\"manifestSize\" : " + ManifestFiles.of("tagged version").length);
    JsonNode tags = api.post("/v1/table/ns%24t/tags/list", "{}").assertOk().get("tags");
    assertThat(tags.get("release").get("version").asLong()).isEqualTo(1);
    assertThat(tags.get("release").get("manifestSize").asLong())
        .isEqualTo(ManifestFiles.of("tagged version").length);
    api.post("/v1/table/ns%24t/tags/delete", "{\"tag\":\"release\"}").assertOk();
    assertThat(exists(tagKey)).isFalse();
    api.post("/v1/table/ns%24t/tags/version", "{\"tag\":\"release\"}").assertError(404, 8);
  }

  private List<String> objectsUnder(String prefix) {
    return s3
        .client
        .listObjectsV2(list -> list.bucket(S3Server.BUCKET).prefix(prefix))
        .contents()
        .stream()
        .map(S3Object::key)
        .toList();
  }
}
