package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every transaction id the gateway answers can be described, by its tenant only. */
class TransactionIT {
  private final TestGateway gw = TestGateway.shared();

  private static String id(JsonNode answer) {
    return answer.get("transaction_id").asText();
  }

  private static JsonNode describe(Api api, String transaction) {
    JsonNode described = api.post("/v1/transaction/" + transaction + "/describe", "{}").assertOk();
    assertThat(described.get("status").asText()).isEqualTo("Succeeded");
    return described.get("properties");
  }

  @Test
  void everyKindOfTransactionIsDescribed() {
    Api api = gw.api(gw.newTenant("tx"));
    api.declare("ns", "t");
    api.post("/v1/table/ns%24u/declare", "{}").assertOk();
    Map<String, String> operations = new LinkedHashMap<>();

    JsonNode created =
        api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
    JsonNode properties = describe(api, id(created));
    assertThat(properties.get("operation").asText()).isEqualTo("CreateTableVersion");
    assertThat(properties.get("table").asText()).isEqualTo("ns$t");
    assertThat(properties.get("branch").asText()).isEqualTo("main");
    assertThat(properties.get("version").asText()).isEqualTo("1");
    assertThat(properties.get("manifest_path").asText()).isEqualTo("t/1");

    operations.put(
        id(
            api.post(
                    "/v1/table/version/batch-create",
                    "{\"entries\":[{\"id\":[\"ns\",\"t\"],\"version\":2,\"manifest_path\":\"t/2\"}]}")
                .assertOk()),
        "BatchCreateTableVersions");
    operations.put(
        id(
            api.post(
                    "/v1/table/batch-commit",
                    "{\"operations\":[{\"create_table_version\":{\"id\":[\"ns\",\"t\"],\"version\":3,\"manifest_path\":\"t/3\"}}]}")
                .assertOk()),
        "BatchCommitTables");
    operations.put(
        id(
            api.post("/v1/table/ns%24t/branches/create", "{\"name\":\"b\",\"from_version\":1}")
                .assertOk()),
        "CreateTableBranch");
    operations.put(
        id(api.post("/v1/table/ns%24t/branches/delete", "{\"name\":\"b\"}").assertOk()),
        "DeleteTableBranch");
    operations.put(
        id(
            api.post(
                    "/v1/table/ns%24t/version/delete",
                    "{\"ranges\":[{\"start_version\":3,\"end_version\":-1}]}")
                .assertOk()),
        "BatchDeleteTableVersions");
    operations.put(
        id(api.post("/v1/table/ns%24t/rename", "{\"new_table_name\":\"v\"}").assertOk()),
        "RenameTable");
    operations.put(id(api.post("/v1/table/ns%24v/deregister", "{}").assertOk()), "DeregisterTable");
    operations.put(id(api.post("/v1/table/ns%24u/drop", "{}").assertOk()), "DropTable");

    assertThat(operations).hasSize(8);
    operations.forEach(
        (transaction, operation) ->
            assertThat(describe(api, transaction).get("operation").asText())
                .as(transaction)
                .isEqualTo(operation));
    assertThat(describe(api, id(created)).get("table").asText())
        .as("a create's transaction names the table by the id it was committed under")
        .isIn("ns$t", "ns$v");

    Api other = gw.api(gw.newTenant("tx-other"));
    other.post("/v1/transaction/" + id(created) + "/describe", "{}").assertError(404, 10);
    other
        .post("/v1/transaction/" + operations.keySet().iterator().next() + "/describe", "{}")
        .assertError(404, 10);
    api.post("/v1/transaction/" + UUID.randomUUID() + "/describe", "{}").assertError(404, 10);
    api.post("/v1/transaction/not-a-uuid/describe", "{}").assertError(404, 10);
  }
}
