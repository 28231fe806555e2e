package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import dev.lvg.lance.LanceDbNodeIT;
import java.net.URI;
import java.sql.ResultSet;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * Credentials vended through STS on a real S3 server with STS (Ceph's RADOS Gateway, started by
 * {@code chaos/rgw-test.sh}, which runs this class): each tenant's writers reach their own table's
 * prefix and nothing else, with the right of the key that asked.
 */
class VendedCredentialsRgwIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();

  /** The clock vended credentials are judged by, moved forward by the expiry test. */
  private static final class MovableClock extends Clock {
    private volatile Duration ahead = Duration.ZERO;

    @Override
    public ZoneOffset getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException();
    }

    @Override
    public Instant instant() {
      return Instant.now().plus(ahead);
    }
  }

  private static final MovableClock CLOCK = new MovableClock();
  private static String endpoint;
  private static String bucket;
  private static S3Client gatewayUser;
  private static TestGateway gw;

  private static String env(String name) {
    return Objects.requireNonNull(System.getenv(name), name + " (run through chaos/rgw-test.sh)");
  }

  @BeforeAll
  static void start() {
    endpoint = env("RGW_ENDPOINT");
    bucket = env("RGW_BUCKET");
    gatewayUser = client(AwsBasicCredentials.create(env("RGW_ACCESS_KEY"), env("RGW_SECRET_KEY")));
    gatewayUser.createBucket(create -> create.bucket(bucket));
    Map<String, String> settings = new HashMap<>();
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_STORAGE_ROOT", "s3://" + bucket + "/tables");
    settings.put("LVG_S3_ENDPOINT", endpoint);
    settings.put("LVG_S3_PATH_STYLE", "true");
    settings.put("LVG_S3_ACCESS_KEY_ID", env("RGW_ACCESS_KEY"));
    settings.put("LVG_S3_SECRET_ACCESS_KEY", env("RGW_SECRET_KEY"));
    settings.put("LVG_STS_ROLE_ARN", env("RGW_ROLE_ARN"));
    settings.put("LVG_VENDED_CREDENTIALS_SECONDS", "900");
    settings.put("LVG_MANIFEST_MODE", "finalize");
    settings.put("LVG_ADMIN_API_KEY", ADMIN_KEY);
    gw = TestGateway.dedicated(settings, CLOCK);
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
    gatewayUser.close();
  }

  private static S3Client client(AwsCredentials credentials) {
    return S3Client.builder()
        .httpClient(UrlConnectionHttpClient.create())
        .endpointOverride(URI.create(endpoint))
        .region(Region.US_EAST_1)
        .forcePathStyle(true)
        .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
        .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
        .credentialsProvider(StaticCredentialsProvider.create(credentials))
        .build();
  }

  /** An S3 client holding exactly what the gateway answered in {@code storage_options}. */
  private static S3Client vendedClient(JsonNode options) {
    return client(
        AwsSessionCredentials.create(
            options.get("aws_access_key_id").asText(),
            options.get("aws_secret_access_key").asText(),
            options.get("aws_session_token").asText()));
  }

  /** A tenant with a namespace; answers its write key. */
  private static String tenant(String prefix) {
    String key = gw.newTenant(prefix);
    gw.api(key).post("/v1/namespace/ns/create", "{}").assertOk();
    return key;
  }

  private static JsonNode declare(String key, String table) {
    return gw.api(key).post("/v1/table/ns%24" + table + "/declare", "{}").assertOk();
  }

  private static String keyOf(JsonNode answer) {
    return answer.get("location").asText().substring(("s3://" + bucket + "/").length());
  }

  private static void put(S3Client client, String key) {
    client.putObject(put -> put.bucket(bucket).key(key), RequestBody.fromString("x"));
  }

  private static void assertForbidden(Runnable request, String what) {
    assertThatThrownBy(request::run)
        .as(what)
        .isInstanceOfSatisfying(
            S3Exception.class, denied -> assertThat(denied.statusCode()).isEqualTo(403));
  }

  @Test
  void aWriterReachesItsOwnTableAndNothingElse() {
    String owner = tenant("vend-a");
    String other = tenant("vend-b");
    JsonNode mine = declare(owner, "t1");
    JsonNode sibling = declare(owner, "t2");
    JsonNode foreign = declare(other, "t1");
    JsonNode options = mine.get("storage_options");
    assertThat(options.get("aws_endpoint").asText()).isEqualTo(endpoint);
    assertThat(options.get("aws_access_key_id").asText()).isNotEqualTo(env("RGW_ACCESS_KEY"));
    assertThat(options.toString()).doesNotContain(env("RGW_SECRET_KEY"));
    long expires = Long.parseLong(options.get("expires_at_millis").asText());
    assertThat(expires).isBetween(System.currentTimeMillis(), System.currentTimeMillis() + 901_000);
    assertThat(Long.parseLong(options.get("refresh_offset_millis").asText())).isEqualTo(90_000);

    String table = keyOf(mine);
    put(gatewayUser, keyOf(sibling) + "/data/planted");
    put(gatewayUser, keyOf(foreign) + "/data/planted");
    try (S3Client writer = vendedClient(options)) {
      put(writer, table + "/data/a.lance");
      assertThat(
              writer
                  .getObjectAsBytes(get -> get.bucket(bucket).key(table + "/data/a.lance"))
                  .asUtf8String())
          .isEqualTo("x");
      assertThat(writer.listObjectsV2(list -> list.bucket(bucket).prefix(table + "/")).contents())
          .hasSize(1);
      writer.deleteObject(delete -> delete.bucket(bucket).key(table + "/data/a.lance"));
      for (JsonNode outside : new JsonNode[] {sibling, foreign}) {
        String key = keyOf(outside);
        assertForbidden(() -> put(writer, key + "/_versions/planted.manifest"), "put " + key);
        assertForbidden(
            () -> writer.getObjectAsBytes(get -> get.bucket(bucket).key(key + "/data/planted")),
            "get " + key);
        assertForbidden(
            () -> writer.listObjectsV2(list -> list.bucket(bucket).prefix(key + "/")),
            "list " + key);
        assertForbidden(
            () -> writer.deleteObject(delete -> delete.bucket(bucket).key(key + "/data/planted")),
            "delete " + key);
      }
      assertForbidden(() -> writer.listObjectsV2(list -> list.bucket(bucket)), "list the bucket");
      assertForbidden(
          () -> writer.listObjectsV2(list -> list.bucket(bucket).prefix(table)),
          "list a prefix of the table's prefix that other tables share");
      assertForbidden(() -> put(writer, "tables/planted"), "put outside every table");
    }
  }

  @Test
  void aReadKeyGetsCredentialsThatReadButNeverWrite() {
    String tenantName = "vend-r-" + UUID.randomUUID().toString().substring(0, 8);
    Api.call(
            gw.baseUrl, "POST", "/admin/v1/tenants", "{\"name\":\"" + tenantName + "\"}", ADMIN_KEY)
        .assertOk();
    String writeKey = issue(tenantName, "\"read\",\"write\"");
    String readKey = issue(tenantName, "\"read\"");
    gw.api(writeKey).post("/v1/namespace/ns/create", "{}").assertOk();
    String table = keyOf(declare(writeKey, "t"));
    put(gatewayUser, table + "/data/existing");
    JsonNode described = gw.api(readKey).post("/v1/table/ns%24t/describe", "{}").assertOk();
    JsonNode options = described.get("storage_options");
    try (S3Client reader = vendedClient(options)) {
      assertThat(
              reader
                  .getObjectAsBytes(get -> get.bucket(bucket).key(table + "/data/existing"))
                  .asUtf8String())
          .isEqualTo("x");
      assertThat(reader.listObjectsV2(list -> list.bucket(bucket).prefix(table + "/")).contents())
          .hasSize(1);
      assertForbidden(() -> put(reader, table + "/_versions/planted.manifest"), "read key put");
      assertForbidden(
          () -> reader.deleteObject(delete -> delete.bucket(bucket).key(table + "/data/existing")),
          "read key delete");
    }
    String sibling = keyOf(declare(writeKey, "sibling"));
    put(gatewayUser, sibling + "/data/existing");
    try (S3Client reader = vendedClient(options)) {
      assertForbidden(
          () -> reader.getObjectAsBytes(get -> get.bucket(bucket).key(sibling + "/data/existing")),
          "read key get of another table");
      assertForbidden(
          () -> reader.listObjectsV2(list -> list.bucket(bucket).prefix(sibling + "/")),
          "read key list of another table");
      assertForbidden(() -> reader.listObjectsV2(list -> list.bucket(bucket)), "list the bucket");
    }
    JsonNode writerOptions =
        gw.api(writeKey).post("/v1/table/ns%24t/describe", "{}").assertOk().get("storage_options");
    assertThat(writerOptions.get("aws_access_key_id").asText())
        .as("a write key's credentials are not a read key's")
        .isNotEqualTo(options.get("aws_access_key_id").asText());
    try (S3Client writer = vendedClient(writerOptions)) {
      put(writer, table + "/data/written");
    }
  }

  @Test
  void aTableScopedKeyGetsCredentialsForItsTablesOnlyAndOnlyTheRightGranted() {
    String tenantName = "vend-g-" + UUID.randomUUID().toString().substring(0, 8);
    Api.call(
            gw.baseUrl, "POST", "/admin/v1/tenants", "{\"name\":\"" + tenantName + "\"}", ADMIN_KEY)
        .assertOk();
    String owner = issue(tenantName, "\"read\",\"write\"");
    gw.api(owner).post("/v1/namespace/ns/create", "{}").assertOk();
    String written = keyOf(declare(owner, "written"));
    String read = keyOf(declare(owner, "read"));
    String other = keyOf(declare(owner, "other"));
    for (String table : new String[] {written, read, other}) {
      put(gatewayUser, table + "/data/existing");
    }
    String scoped =
        Api.call(
                gw.baseUrl,
                "POST",
                "/admin/v1/tenants/" + tenantName + "/keys",
                "{\"grants\":[{\"right\":\"write\",\"table\":[\"ns\",\"written\"]},"
                    + "{\"right\":\"read\",\"table\":[\"ns\",\"read\"]}]}",
                ADMIN_KEY)
            .assertOk()
            .get("api_key")
            .asText();
    Api api = gw.api(scoped);
    api.post("/v1/table/ns%24other/describe", "{}").assertError(404, 4);
    try (S3Client writer =
        vendedClient(
            api.post("/v1/table/ns%24written/describe", "{}").assertOk().get("storage_options"))) {
      put(writer, written + "/data/new");
      for (String outside : new String[] {read, other}) {
        assertForbidden(() -> put(writer, outside + "/data/planted"), "put " + outside);
        assertForbidden(
            () ->
                writer.getObjectAsBytes(get -> get.bucket(bucket).key(outside + "/data/existing")),
            "get " + outside);
      }
    }
    try (S3Client reader =
        vendedClient(
            api.post("/v1/table/ns%24read/describe", "{}").assertOk().get("storage_options"))) {
      assertThat(
              reader
                  .getObjectAsBytes(get -> get.bucket(bucket).key(read + "/data/existing"))
                  .asUtf8String())
          .isEqualTo("x");
      assertForbidden(() -> put(reader, read + "/data/planted"), "a read grant's put");
      assertForbidden(
          () -> reader.getObjectAsBytes(get -> get.bucket(bucket).key(other + "/data/existing")),
          "a read grant's get of another table");
    }
  }

  /** A new key of {@code tenant} with {@code scopes} (JSON strings, comma-separated). */
  private static String issue(String tenant, String scopes) {
    return Api.call(
            gw.baseUrl,
            "POST",
            "/admin/v1/tenants/" + tenant + "/keys",
            "{\"scopes\":[" + scopes + "]}",
            ADMIN_KEY)
        .assertOk()
        .get("api_key")
        .asText();
  }

  @Test
  void credentialsAreReusedUntilNearExpiryThenVendedAnewAndEachHandOutIsAudited() throws Exception {
    String key = tenant("vend-c");
    JsonNode first = declare(key, "t").get("storage_options");
    JsonNode again =
        gw.api(key).post("/v1/table/ns%24t/describe", "{}").assertOk().get("storage_options");
    assertThat(again.get("aws_access_key_id")).isEqualTo(first.get("aws_access_key_id"));
    assertThat(again.get("expires_at_millis")).isEqualTo(first.get("expires_at_millis"));

    CLOCK.ahead = Duration.ofSeconds(700);
    try {
      JsonNode refreshed =
          gw.api(key).post("/v1/table/ns%24t/describe", "{}").assertOk().get("storage_options");
      assertThat(refreshed.get("aws_access_key_id")).isNotEqualTo(first.get("aws_access_key_id"));
      try (S3Client writer = vendedClient(refreshed)) {
        put(writer, keyOf(declareAnswer(key)) + "/data/after-refresh");
      }
    } finally {
      CLOCK.ahead = Duration.ZERO;
    }

    try (var db = gw.jdbc();
        var query =
            db.prepareStatement(
                "SELECT e.context FROM audit_events a JOIN tenants t ON t.id = a.tenant_id,"
                    + " unnest(a.context) AS e(context)"
                    + " WHERE a.operation = 'VendCredentials' AND t.name LIKE 'vend-c-%'"
                    + " AND e.context LIKE ?")) {
      query.setString(1, "%" + first.get("expires_at_millis").asText() + "%");
      ResultSet rows = query.executeQuery();
      int count = 0;
      while (rows.next()) {
        String context = rows.getString(1);
        assertThat(context).contains("\"right\":\"write\"");
        assertThat(context)
            .doesNotContain(first.get("aws_secret_access_key").asText())
            .doesNotContain(first.get("aws_session_token").asText());
        count++;
      }
      assertThat(count)
          .as("the declare and the describe that handed out the same credentials")
          .isEqualTo(2);
    }
  }

  /** Restarts the RADOS Gateway with its clock {@code seconds} ahead (chaos/rgw.sh). */
  private static void shiftStorageClock(int seconds) throws Exception {
    Process restart =
        new ProcessBuilder("bash", "-c", ". chaos/rgw.sh && rgw_restart_shifted " + seconds)
            .redirectErrorStream(true)
            .redirectOutput(new java.io.File("target/rgw-restart.log"))
            .start();
    assertThat(restart.waitFor()).as("radosgw restarted").isZero();
  }

  @Test
  void expiredCredentialsAreRefusedByStorageAndADescribeVendsFreshOnes() throws Exception {
    String key = tenant("vend-e");
    JsonNode old = declare(key, "t").get("storage_options");
    String table = keyOf(declareAnswer(key));
    shiftStorageClock(1000);
    try {
      try (S3Client writer = vendedClient(old)) {
        assertThatThrownBy(() -> put(writer, table + "/data/late"))
            .as("credentials past their expiry")
            .isInstanceOfSatisfying(
                S3Exception.class,
                refused -> {
                  assertThat(refused.statusCode()).isIn(400, 403);
                  assertThat(refused.awsErrorDetails().errorCode())
                      .isNotEqualTo("RequestTimeTooSkewed");
                });
      }
      CLOCK.ahead = Duration.ofSeconds(1000);
      JsonNode fresh = declareAnswer(key).get("storage_options");
      assertThat(fresh.get("aws_access_key_id")).isNotEqualTo(old.get("aws_access_key_id"));
      try (S3Client writer = vendedClient(fresh)) {
        put(writer, table + "/data/on-time");
      }
    } finally {
      CLOCK.ahead = Duration.ZERO;
      shiftStorageClock(0);
    }
  }

  private static JsonNode declareAnswer(String key) {
    return gw.api(key).post("/v1/table/ns%24t/describe", "{}").assertOk();
  }

  @Test
  void lanceDbForNodeWritesAndReadsThroughVendedCredentialsAlone() throws Exception {
    String key = gw.newTenant("vend-lancedb");
    JsonNode result = LanceDbNodeIT.script(gw, key, gw.api(key), "smoke.mjs");
    assertThat(result.get("rows").intValue()).isEqualTo(3);
    assertThat(result.get("versions").toString()).isEqualTo("[1,2]");
    assertThat(result.get("rowsAtVersion1").intValue()).isEqualTo(2);
  }

  @Test
  void lanceWritesAndTagsThroughVendedCredentialsAlone() throws Exception {
    String key = gw.newTenant("vend-lance");
    S3FinalizeIT.lanceWritesAppendsAndTimeTravels(gw, key, gatewayUser, bucket);
    try (var allocator = new org.apache.arrow.memory.RootAllocator()) {
      var namespace = new org.lance.namespace.RestNamespace();
      namespace.initialize(Map.of("uri", gw.baseUrl, "header.x-api-key", key), allocator);
      try (var latest =
          org.lance.Dataset.open()
              .allocator(allocator)
              .namespaceClient(namespace)
              .tableId(dev.lvg.lance.LanceData.TABLE)
              .build()) {
        latest.tags().create("first", 1);
        assertThat(latest.tags().getVersion("first")).isEqualTo(1);
        try (var tagged = latest.checkoutTag("first")) {
          assertThat(tagged.countRows()).isEqualTo(6);
        }
      }
    }
  }
}
