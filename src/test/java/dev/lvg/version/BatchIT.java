package dev.lvg.version;

import static dev.lvg.Api.createBody;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class BatchIT {
  private static final String BATCH_CREATE = "/v1/table/version/batch-create";
  private static final String BATCH_COMMIT = "/v1/table/batch-commit";
  private Api api;

  @BeforeEach
  void threeTables() {
    TestGateway gw = TestGateway.shared();
    api = gw.api(gw.newTenant("batch"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    for (String t : new String[] {"a", "b", "c"}) {
      api.post("/v1/table/ns%24" + t + "/declare", "{}").assertOk();
    }
  }

  private static String entry(String table, long version, String path) {
    return "{\"id\":[\"ns\",\""
        + table
        + "\"],\"version\":"
        + version
        + ",\"manifest_path\":\""
        + path
        + "\"}";
  }

  private static String entries(String... entries) {
    return "{\"entries\":[" + String.join(",", entries) + "]}";
  }

  private long count(String table) {
    return api.post("/v1/table/ns%24" + table + "/version/list", null)
        .assertOk()
        .get("versions")
        .size();
  }

  @Test
  void createsAcrossTablesInRequestOrder() {
    JsonNode result =
        api.post(
                BATCH_CREATE,
                entries(
                    entry("b", 1, "b/1"),
                    entry("a", 1, "a/1"),
                    entry("a", 2, "a/2"),
                    entry("c", 1, "c/1")))
            .assertOk();
    assertThat(result.get("versions")).hasSize(4);
    assertThat(result.get("versions").get(0).get("manifest_path").asText()).isEqualTo("b/1");
    assertThat(result.get("versions").get(2).get("version").longValue()).isEqualTo(2);
    assertThat(result.get("transaction_id").asText()).isNotBlank();
    assertThat(count("a")).isEqualTo(2);
    JsonNode replay =
        api.post(BATCH_CREATE, entries(entry("b", 1, "b/1"), entry("c", 2, "c/2"))).assertOk();
    assertThat(replay.get("versions").get(0).get("timestamp_millis"))
        .isEqualTo(result.get("versions").get(0).get("timestamp_millis"));
    assertThat(count("c")).isEqualTo(2);
  }

  @Test
  void aConflictAnywhereWritesNothing() {
    api.post("/v1/table/ns%24b/version/create", createBody(1, "b/1")).assertOk();
    api.post(
            BATCH_CREATE,
            entries(entry("a", 1, "a/1"), entry("b", 1, "b/other"), entry("c", 1, "c/1")))
        .assertError(409, 14);
    api.post(BATCH_CREATE, entries(entry("a", 1, "a/1"), entry("b", 5, "b/5")))
        .assertError(409, 14);
    api.post(BATCH_CREATE, entries(entry("a", 1, "a/1"), entry("missing", 1, "m/1")))
        .assertError(404, 4);
    api.post(
            BATCH_CREATE,
            entries(
                entry("a", 1, "a/1"),
                "{\"id\":[\"nope\",\"x\"],\"version\":1,\"manifest_path\":\"x\"}"))
        .assertError(404, 1);
    assertThat(count("a")).isZero();
    assertThat(count("c")).isZero();
    assertThat(count("b")).isEqualTo(1);
  }

  @Test
  void malformedBatchesAre400() {
    api.post(BATCH_CREATE, "{}").assertError(400, 13);
    api.post(BATCH_CREATE, "{\"entries\":[]}").assertError(400, 13);
    api.post(BATCH_CREATE, "{\"entries\":{}}").assertError(400, 13);
    api.post(BATCH_CREATE, entries("{\"version\":1,\"manifest_path\":\"x\"}")).assertError(400, 13);
    api.post(
            BATCH_CREATE,
            entries(entry("a", 1, "a/1"), "{\"id\":[\"ns\",\"b\"],\"version\":\"1\"}"))
        .assertError(400, 13);
    api.post(BATCH_COMMIT, "{\"operations\":[{}]}").assertError(400, 13);
    api.post(
            BATCH_COMMIT,
            "{\"operations\":[{\"declare_table\":{\"id\":[\"ns\",\"d\"]},"
                + "\"deregister_table\":{\"id\":[\"ns\",\"a\"]}}]}")
        .assertError(400, 13);
    assertThat(count("a")).isZero();
  }

  @Test
  void aFullBatchWhoseFirstOperationFailsIsAnsweredWithThatFailure() {
    StringBuilder operations = new StringBuilder();
    for (int i = 0; i < 1000; i++) {
      operations.append(i == 0 ? "" : ",");
      operations.append("{\"declare_table\":{\"id\":[\"nowhere\",\"t").append(i).append("\"]}}");
    }
    api.post(BATCH_COMMIT, "{\"operations\":[" + operations + "]}").assertError(404, 1);
    api.post(
            BATCH_COMMIT,
            "{\"operations\":[" + operations.toString().replace("nowhere", "ns") + "]}")
        .assertOk();
    assertThat(api.post("/v1/table/ns%24t999/version/list", null).assertOk().get("versions"))
        .isEmpty();
  }

  @Test
  void batchAgainstAConcurrentConflictingWriterIsAllOrNothing() throws Exception {
    int batchWins = 0;
    int singleWins = 0;
    for (int round = 1; round <= 20; round++) {
      // Both writers wait behind a lock on the versions table, so they run at once when it goes.
      // Odd rounds the batch asks first and writes b first, so it often wins; even rounds the
      // single create asks first and the batch writes b second, so the single one usually does.
      CompletableFuture<Api.Response> batch;
      CompletableFuture<Api.Response> single;
      String a = entry("a", round, "a/" + round);
      String b = entry("b", round, "b/batch-" + round);
      String c = entry("c", round, "c/" + round);
      String batchBody = round % 2 == 1 ? entries(b, a, c) : entries(a, b, c);
      String singlePath = "/v1/table/ns%24b/version/create";
      try (TableLock lock = new TableLock(TestGateway.shared(), "table_versions")) {
        if (round % 2 == 1) {
          batch = api.postAsync(BATCH_CREATE, batchBody);
          lock.awaitSessionsWaiting(1);
          single = api.postAsync(singlePath, createBody(round, "b/single-" + round));
        } else {
          single = api.postAsync(singlePath, createBody(round, "b/single-" + round));
          lock.awaitSessionsWaiting(1);
          batch = api.postAsync(BATCH_CREATE, batchBody);
        }
        lock.awaitSessionsWaiting(2);
      }
      Api.Response batchResponse = batch.join();
      Api.Response singleResponse = single.join();
      String bPath =
          api.post("/v1/table/ns%24b/version/describe", "{\"version\":" + round + "}")
              .assertOk()
              .get("version")
              .get("manifest_path")
              .asText();
      boolean aLanded =
          api.post("/v1/table/ns%24a/version/describe", "{\"version\":" + round + "}").status()
              == 200;
      boolean cLanded =
          api.post("/v1/table/ns%24c/version/describe", "{\"version\":" + round + "}").status()
              == 200;
      if (batchResponse.status() == 200) {
        batchWins++;
        singleResponse.assertError(409, 14);
        assertThat(bPath).isEqualTo("b/batch-" + round);
        assertThat(aLanded).isTrue();
        assertThat(cLanded).isTrue();
      } else {
        singleWins++;
        batchResponse.assertError(409, 14);
        singleResponse.assertOk();
        assertThat(bPath).isEqualTo("b/single-" + round);
        assertThat(aLanded).as("round %d: a without b", round).isFalse();
        assertThat(cLanded).as("round %d: c without b", round).isFalse();
        api.post("/v1/table/ns%24a/version/create", createBody(round, "a/" + round)).assertOk();
        api.post("/v1/table/ns%24c/version/create", createBody(round, "c/" + round)).assertOk();
      }
    }
    assertThat(batchWins).as("rounds the batch won").isPositive();
    assertThat(singleWins).as("rounds the single create won").isPositive();
  }

  @Test
  void batchCommitMixesOperationsAtomically() {
    api.post("/v1/table/ns%24a/version/create", createBody(1, "a/1")).assertOk();
    api.post("/v1/table/ns%24a/version/create", createBody(2, "a/2")).assertOk();
    JsonNode result =
        api.post(
                BATCH_COMMIT,
                """
        {"operations":[
          {"declare_table":{"id":["ns","d"]}},
          {"create_table_version":{"id":["ns","d"],"version":1,"manifest_path":"d/1"}},
          {"delete_table_versions":{"id":["ns","a"],"ranges":[{"start_version":0,"end_version":2}]}},
          {"deregister_table":{"id":["ns","c"]}}
        ]}""")
            .assertOk();
    JsonNode results = result.get("results");
    assertThat(results).hasSize(4);
    assertThat(results.get(0).get("declare_table").get("managed_versioning").booleanValue())
        .isTrue();
    assertThat(results.get(1).get("create_table_version").get("version").get("version").longValue())
        .isEqualTo(1);
    assertThat(results.get(2).get("delete_table_versions").get("deleted_count").longValue())
        .isEqualTo(1);
    assertThat(results.get(3).get("deregister_table").get("location").asText())
        .endsWith("/ns/c.lance");
    assertThat(count("d")).isEqualTo(1);
    assertThat(count("a")).isEqualTo(1);
    api.post("/v1/table/ns%24c/exists", "{}").assertError(404, 4);

    api.post(
            BATCH_COMMIT,
            """
        {"operations":[
          {"declare_table":{"id":["ns","e"]}},
          {"delete_table_versions":{"id":["ns","a"],"ranges":[{"start_version":0,"end_version":-1}]}},
          {"create_table_version":{"id":["ns","d"],"version":1,"manifest_path":"d/other"}}
        ]}""")
        .assertError(409, 14);
    api.post("/v1/table/ns%24e/exists", "{}").assertError(404, 4);
    assertThat(count("a")).isEqualTo(1);
  }
}
