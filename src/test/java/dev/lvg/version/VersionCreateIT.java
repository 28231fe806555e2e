package dev.lvg.version;

import static dev.lvg.Api.createBody;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.net.URI;
import java.net.http.HttpRequest;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class VersionCreateIT {
  private static TestGateway gw;
  private static String key;
  private static Api api;

  @BeforeAll
  static void start() {
    gw = TestGateway.shared();
    key = gw.newTenant("create");
    api = gw.api(key);
    api.post("/v1/namespace/ns1/create", "{}").assertOk();
    table("v");
  }

  private static String table(String name) {
    api.post("/v1/table/ns1%24" + name + "/declare", "{}").assertOk();
    return "/v1/table/ns1%24" + name + "/version/create";
  }

  @Test
  void createsVersionOneWithEveryField() {
    String path = table("full");
    JsonNode body =
        api.post(
                path,
                """
        {"context":{},"id":["ns1","full"],"version":1,"manifest_path":"ns1/full.lance/_versions/1.manifest",
         "manifest_size":123,"e_tag":"\\"210606-6616cd6bfc17c-173\\"","metadata":{"k":"v"},"naming_scheme":"V2",
         "unknown_field":{"ignored":true}}""")
            .assertOk();
    JsonNode version = body.get("version");
    assertThat(version.get("version").longValue()).isEqualTo(1);
    assertThat(version.get("manifest_path").asText())
        .isEqualTo("ns1/full.lance/_versions/1.manifest");
    assertThat(version.get("manifest_size").longValue()).isEqualTo(123);
    assertThat(version.get("e_tag").asText()).isEqualTo("\"210606-6616cd6bfc17c-173\"");
    assertThat(version.get("metadata").get("k").asText()).isEqualTo("v");
    long now = System.currentTimeMillis();
    assertThat(version.get("timestamp_millis").longValue()).isBetween(now - 120_000, now + 120_000);
    assertThat(body.get("transaction_id").asText()).isNotBlank();

    JsonNode stored =
        api.post("/v1/table/ns1%24full/version/describe", "{\"version\":1}")
            .assertOk()
            .get("version");
    assertThat(stored).as("what a read returns is what the create answered").isEqualTo(version);
    assertThat(stored.get("e_tag").asText()).isEqualTo("\"210606-6616cd6bfc17c-173\"");
    assertThat(
            api.post("/v1/table/ns1%24full/version/list", null).assertOk().get("versions").get(0))
        .isEqualTo(version);
  }

  @Test
  void retryOfTheSameRequestGetsTheStoredRow() {
    String path = table("replay");
    JsonNode first = api.post(path, createBody(1, "a/1.manifest")).assertOk();
    JsonNode again = api.post(path, createBody(1, "a/1.manifest")).assertOk();
    assertThat(again).isEqualTo(first);
  }

  @Test
  void sameVersionWithAnotherPathConflicts() {
    String path = table("conflict");
    api.post(path, createBody(1, "a/1.manifest")).assertOk();
    api.post(path, createBody(1, "b/1.manifest")).assertError(409, 14);
  }

  @Test
  void versionsGoLatestPlusOne() {
    String path = table("chain");
    api.post(path, createBody(1, "c/1")).assertOk();
    api.post(path, createBody(3, "c/3")).assertError(409, 14);
    api.post(path, createBody(0, "c/0")).assertError(409, 14);
    api.post(path, createBody(2, "c/2")).assertOk();
    api.post(path, createBody(3, "c/3")).assertOk();
  }

  @Test
  void anEmptyTableAcceptsItsFirstVersion() {
    api.post(table("first"), createBody(7, "f/7")).assertOk();
    api.post(table("zero"), createBody(0, "z/0")).assertOk();
  }

  @Test
  void unknownTableNamespaceAndBranchAre404() {
    table("known");
    api.post("/v1/table/ns1%24missing/version/create", createBody(1, "x")).assertError(404, 4);
    api.post("/v1/table/nope%24missing/version/create", createBody(1, "x")).assertError(404, 1);
    api.post(
            "/v1/table/ns1%24known/version/create",
            "{\"version\":1,\"manifest_path\":\"x\",\"branch\":\"dev\"}")
        .assertError(404, 22);
    api.post(
            "/v1/table/ns1%24missing/version/create",
            "{\"version\":1,\"manifest_path\":\"x\",\"branch\":\"dev\"}")
        .assertError(404, 4);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{\"version\":\"1\",\"manifest_path\":\"p\"}",
        "{\"version\":1.5,\"manifest_path\":\"p\"}",
        "{\"version\":1.0,\"manifest_path\":\"p\"}",
        "{\"version\":-1,\"manifest_path\":\"p\"}",
        "{\"version\":9223372036854775808,\"manifest_path\":\"p\"}",
        "{\"version\":true,\"manifest_path\":\"p\"}",
        "{\"manifest_path\":\"p\"}",
        "{\"version\":1}",
        "{\"version\":1,\"manifest_path\":\"\"}",
        "{\"version\":1,\"manifest_path\":7}",
        "{\"version\":1,\"manifest_path\":\"p\",\"manifest_size\":-1}",
        "{\"version\":1,\"manifest_path\":\"p\",\"manifest_size\":\"12\"}",
        "{\"version\":1,\"manifest_path\":\"p\",\"naming_scheme\":\"V3\"}",
        "{\"version\":1,\"manifest_path\":\"p\",\"metadata\":{\"k\":1}}",
        "{\"version\":1,\"manifest_path\":\"p\",\"metadata\":[\"k\"]}",
        "{\"version\":1,\"manifest_path\":\"p\",\"context\":\"c\"}",
        "{\"version\":1,\"manifest_path\":\"p\",\"e_tag\":5}",
        "{\"version\":1,\"manifest_path\":\"p\",\"id\":\"ns1$v\"}",
        "{\"version\":1,\"manifest_path\":\"p\",\"id\":[\"ns1\",\"other\"]}",
        "{\"version\":1,\"manifest_path\":\"p\",\"version\":2}",
        "{\"version\":1,",
        "{\"version\":1,\"manifest_path\":\"p\"} trailing",
        "null",
        "[1]",
        "\"text\"",
        "42",
        ""
      })
  void malformedRequestsAre400WithCode13(String body) {
    Api.Response response = api.post("/v1/table/ns1%24v/version/create", body).assertError(400, 13);
    assertThat(response.json().get("error").asText()).isNotBlank();
  }

  @Test
  void errorsNameTheBadField() {
    table("named");
    String path = "/v1/table/ns1%24named/version/create";
    assertThat(
            api.post(path, "{\"version\":\"1\",\"manifest_path\":\"p\"}")
                .json()
                .get("error")
                .asText())
        .contains("version");
    assertThat(api.post(path, "{\"version\":1}").json().get("error").asText())
        .contains("manifest_path");
    assertThat(
            api.post(path, "{\"version\":1,\"manifest_path\":\"p\",\"manifest_size\":-4}")
                .json()
                .get("error")
                .asText())
        .contains("manifest_size");
  }

  @Test
  void bodyOverTheLimitIsRejectedWithoutA500() {
    String path = table("big");
    String huge =
        "{\"version\":1,\"manifest_path\":\"p\",\"metadata\":{\"k\":\""
            + "x".repeat((int) gw.config.maxBodyBytes())
            + "\"}}";
    Api.Response response = api.post(path, huge);
    assertThat(response.status()).isEqualTo(413);
    assertThat(response.json().get("code").intValue()).isEqualTo(13);
  }

  @Test
  void largeJsonBodiesLabelledAsFormsAreReadAsJson() {
    String path = table("formed");
    StringBuilder metadata = new StringBuilder();
    for (int i = 0; i < 200; i++) {
      metadata.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":\"");
      metadata.append("x".repeat(1000)).append('"');
    }
    String body = "{\"version\":1,\"manifest_path\":\"f/1\",\"metadata\":{" + metadata + "}}";
    for (String type :
        new String[] {"application/x-www-form-urlencoded", "multipart/form-data; boundary=x"}) {
      Api.Response response =
          Api.send(api.request(path, body).setHeader("Content-Type", type).build());
      JsonNode stored = response.assertOk().get("version").get("metadata");
      assertThat(stored).hasSize(200);
      assertThat(stored.get("k199").asText()).hasSize(1000);
    }
  }

  @Test
  void bodyIdDefersToThePathWhenAbsentOrEmpty() {
    String path = table("ids");
    api.post(path, "{\"id\":[],\"version\":1,\"manifest_path\":\"i/1\"}").assertOk();
    api.post(path, "{\"id\":[\"ns1\",\"ids\"],\"version\":2,\"manifest_path\":\"i/2\"}").assertOk();
    api.post(path, "{\"id\":null,\"version\":3,\"manifest_path\":\"i/3\"}").assertOk();
  }

  @Test
  void pathIdFollowsTheDelimiterRules() {
    table("delim");
    api.post("/v1/table/ns1%24delim/version/create", createBody(1, "d/1")).assertOk();
    api.post("/v1/table/ns1$delim/version/create", createBody(2, "d/2")).assertOk();
    api.post("/v1/table/ns1.delim/version/create?delimiter=.", createBody(3, "d/3")).assertOk();
    api.post("/v1/table/ns1%24delim/version/create?delimiter=%24", createBody(4, "d/4")).assertOk();
    api.post("/v1/table/ns1::delim/version/create?delimiter=::", createBody(5, "d/5")).assertOk();
    api.post("/v1/table/ns1%24%24delim/version/create", createBody(6, "d/6")).assertError(400, 13);
    api.post("/v1/table/%24/version/create", createBody(6, "d/6")).assertError(400, 13);
    api.post("/v1/table/ns1%24delim/version/create?delimiter=", createBody(6, "d/6"))
        .assertError(400, 13);
  }

  @Test
  void tablesInTheRootNamespaceWork() {
    api.post("/v1/table/rooted/declare", "{}").assertOk();
    api.post("/v1/table/rooted/version/create", createBody(1, "r/1")).assertOk();
    JsonNode tables = api.get("/v1/namespace/%24/table/list").assertOk();
    assertThat(tables.get("tables").toString()).contains("rooted");
  }

  @Test
  void credentialsAreRequiredAndHeadersWinOverTheBody() {
    String path = table("auth");
    gw.api(null).post(path, createBody(1, "a/1")).assertError(401, 16);
    gw.api("not-a-key").post(path, createBody(1, "a/1")).assertError(401, 16);
    gw.api("").post(path, createBody(1, "a/1")).assertError(401, 16);
    Api.send(
            HttpRequest.newBuilder(URI.create(gw.baseUrl + path))
                .header("Authorization", "Bearer some-token")
                .POST(HttpRequest.BodyPublishers.ofString(createBody(1, "a/1")))
                .build())
        .assertError(401, 16);
    String withIdentity =
        "{\"identity\":{\"api_key\":\"" + key + "\"},\"version\":1,\"manifest_path\":\"a/1\"}";
    gw.api(null).post(path, withIdentity).assertOk();
    gw.api("wrong-key").post(path, withIdentity).assertError(401, 16);
    String withBadIdentity =
        "{\"identity\":{\"api_key\":\"wrong\"},\"version\":2,\"manifest_path\":\"a/2\"}";
    api.post(path, withBadIdentity).assertOk();
    gw.api(null).post(path, "{\"version\":").assertError(401, 16);
  }

  @Test
  void tenantsCannotSeeOrCommitToEachOthersTables() {
    String path = table("private");
    api.post(path, createBody(1, "p/1")).assertOk();
    Api other = gw.api(gw.newTenant("other"));
    other.post(path, createBody(2, "p/2")).assertError(404, 1);
    other.post("/v1/table/ns1%24private/version/list", null).assertError(404, 1);
    other.post("/v1/namespace/ns1/create", "{}").assertOk();
    other.post(path, createBody(2, "p/2")).assertError(404, 4);
    other.post("/v1/table/ns1%24private/declare", "{}").assertOk();
    other.post(path, createBody(1, "q/1")).assertOk();
    JsonNode mine = api.post("/v1/table/ns1%24private/version/list", null).assertOk();
    assertThat(mine.get("versions")).hasSize(1);
    assertThat(mine.get("versions").get(0).get("manifest_path").asText()).isEqualTo("p/1");
  }

  @Test
  void fiftyConcurrentCreatesWithDifferentPathsHaveOneWinner() throws Exception {
    String path = table("race");
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int i = 0; i < 50; i++) {
        calls.add(api.postAsync(path, createBody(1, "race/1.manifest-" + i)));
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(49);
    }
    List<Api.Response> responses = calls.stream().map(CompletableFuture::join).toList();
    List<Api.Response> ok = responses.stream().filter(r -> r.status() == 200).toList();
    assertThat(ok).hasSize(1);
    responses.stream().filter(r -> r.status() != 200).forEach(r -> r.assertError(409, 14));
    JsonNode list = api.post("/v1/table/ns1%24race/version/list", null).assertOk();
    assertThat(list.get("versions")).hasSize(1);
    assertThat(list.get("versions").get(0).get("manifest_path").asText())
        .isEqualTo(ok.get(0).json().get("version").get("manifest_path").asText());
  }

  @Test
  void fiftyConcurrentIdenticalCreatesAllSucceedWithOneRow() throws Exception {
    String path = table("same");
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int i = 0; i < 50; i++) {
        calls.add(api.postAsync(path, createBody(1, "same/1.manifest")));
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(49);
    }
    Set<String> transactions = new HashSet<>();
    for (CompletableFuture<Api.Response> call : calls) {
      JsonNode body = call.join().assertOk();
      assertThat(body.get("version").get("manifest_path").asText()).isEqualTo("same/1.manifest");
      transactions.add(body.get("transaction_id").asText());
    }
    assertThat(transactions).hasSize(1);
    assertThat(api.post("/v1/table/ns1%24same/version/list", null).assertOk().get("versions"))
        .hasSize(1);
  }

  @Test
  void concurrentFirstVersionsWithDifferentNumbersLeaveOneChain() throws Exception {
    int tables = 40;
    long[] firsts = {1, 3, 5, 7};
    for (int t = 0; t < tables; t++) {
      table("first-race-" + t);
    }
    List<CompletableFuture<Api.Response>> calls = new ArrayList<>();
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      for (int t = 0; t < tables; t++) {
        for (long first : firsts) {
          calls.add(
              api.postAsync(
                  "/v1/table/ns1%24first-race-" + t + "/version/create",
                  createBody(first, "fr/" + first)));
        }
      }
      lock.awaitSessionsWaiting(1);
      lock.awaitQueued(tables * firsts.length - tables);
    }
    List<Api.Response> responses = calls.stream().map(CompletableFuture::join).toList();
    for (int t = 0; t < tables; t++) {
      List<Api.Response> forTable = responses.subList(t * firsts.length, (t + 1) * firsts.length);
      assertThat(forTable.stream().filter(r -> r.status() == 200)).as("table %d", t).hasSize(1);
      forTable.stream().filter(r -> r.status() != 200).forEach(r -> r.assertError(409, 14));
      assertThat(
              api.post("/v1/table/ns1%24first-race-" + t + "/version/list", null)
                  .assertOk()
                  .get("versions"))
          .as("table %d", t)
          .hasSize(1);
    }
  }
}
