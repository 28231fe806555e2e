package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.ManifestFiles;
import dev.lvg.TestGateway;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.sync.RequestBody;

/**
 * When the storage backend goes away mid-commit, the writer gets 503 and no claim is left behind.
 */
class StorageOutageIT {

  @Test
  void unreachableStorageIs503AndLeavesNoClaim() throws Exception {
    try (S3Server s3 = new S3Server()) {
      Map<String, String> settings = new HashMap<>(s3.gatewaySettings("outage"));
      settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
      TestGateway gw = TestGateway.dedicated(settings);
      try {
        Api api = gw.api(gw.newTenant("outage"));
        api.post("/v1/namespace/ns/create", "{}").assertOk();
        JsonNode declared = api.post("/v1/table/ns%24t/declare", "{}").assertOk();
        String tableKey =
            declared.get("location").asText().substring(("s3://" + S3Server.BUCKET + "/").length());
        String staging = tableKey + "/_versions/1.manifest-a";
        s3.client.putObject(
            put -> put.bucket(S3Server.BUCKET).key(staging),
            RequestBody.fromBytes(ManifestFiles.of("m")));

        s3.stopServing();

        Api.Response response =
            api.post(
                "/v1/table/ns%24t/version/create",
                "{\"version\":1,\"manifest_path\":\"" + staging + "\",\"naming_scheme\":\"V1\"}");
        response.assertError(503, 17);
        assertThat(response.raw().headers().firstValue("retry-after")).isPresent();
        assertThat(api.post("/v1/table/ns%24t/version/list", null).assertOk().get("versions"))
            .isEmpty();
        try (var db = gw.jdbc();
            var rows =
                db.createStatement()
                    .executeQuery(
                        "SELECT count(*) FROM table_versions WHERE requested_path = '"
                            + staging
                            + "'")) {
          rows.next();
          assertThat(rows.getLong(1)).as("claims left behind").isZero();
        }
      } finally {
        gw.gateway.close();
      }
    }
  }
}
