package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.NodeProject;
import dev.lvg.TestGateway;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change feed through the API: one event per committed change (none for refusals, replays or
 * failures), densely numbered in commit order, paged by cursor and tailed live; a cursor that never
 * passes a change that commits late; expiry and the 410 that follows it.
 */
class FeedIT {
  private static final NodeProject CLOUDEVENTS = NodeProject.of("cloudevents-check", "cloudevents");
  private static TestGateway gateway;

  @BeforeAll
  static void start() {
    gateway = TestGateway.dedicated(Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl()));
  }

  @AfterAll
  static void stop() {
    gateway.gateway.close();
  }

  static Api.Response query(Api api, String body) {
    return api.post("/v1/events", body);
  }

  /** Every event visible now, following the cursor {@code pageSize} at a time. */
  static List<JsonNode> all(Api api, int pageSize, String filters) {
    List<JsonNode> events = new ArrayList<>();
    String token = "";
    while (true) {
      JsonNode page =
          query(
                  api,
                  "{\"continuation-token\":\""
                      + token
                      + "\",\"page-size\":"
                      + pageSize
                      + filters
                      + "}")
              .assertOk();
      page.get("events").forEach(events::add);
      if (page.get("continuation-token").asText().equals(token)) {
        return events;
      }
      token = page.get("continuation-token").asText();
    }
  }

  static List<String> types(List<JsonNode> events) {
    return events.stream().map(event -> event.get("type").asText()).toList();
  }

  static List<Long> positions(List<JsonNode> events) {
    return events.stream().map(event -> Long.parseLong(event.get("sequence").asText())).toList();
  }

  @Test
  void everyCommittedChangeIsOneEventInCommitOrder() throws Exception {
    Api api = gateway.api(gateway.newTenant("feed"));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    String transaction =
        api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1"))
            .assertOk()
            .get("transaction_id")
            .asText();
    api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
    api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/other")).assertError(409, 14);
    api.post("/v1/table/ns%24t/version/create", Api.createBody(5, "t/5")).assertError(409, 14);
    api.post("/v1/table/ns%24t/version/create", "{\"version\":\"two\"}").assertError(400, 13);
    api.post("/v1/table/ns%24t/version/create", Api.createBody(2, "t/2")).assertOk();
    api.post("/v1/table/ns%24t/branches/create", "{\"name\":\"dev\"}").assertOk();
    api.post(
            "/v1/table/ns%24t/version/delete",
            "{\"ranges\":[{\"start_version\":2,\"end_version\":3}]}")
        .assertOk();
    api.post(
            "/v1/table/version/batch-create",
            "{\"entries\":[{\"id\":[\"ns\",\"t\"],\"version\":2,\"manifest_path\":\"t/2b\"}]}")
        .assertOk();
    api.post(
            "/v1/table/batch-commit",
            "{\"operations\":[{\"declare_table\":{\"id\":[\"ns\",\"u\"]}}]}")
        .assertOk();
    api.post("/v1/table/ns%24u/rename", "{\"new_table_name\":\"v\"}").assertOk();
    api.post("/v1/table/ns%24v/drop", "{}").assertOk();
    api.post("/v1/table/ns%24t/deregister", "{}").assertOk();
    api.post("/v1/namespace/ns/drop", "{}").assertOk();
    api.post("/v1/namespace/ns/drop", "{}").assertError(404, 1);

    List<JsonNode> events = all(api, 2, "");
    assertThat(types(events))
        .containsExactly(
            "io.lance.namespace.created",
            "io.lance.table.declared",
            "io.lance.table.version.created",
            "io.lance.table.version.created",
            "io.lance.table.branch.created",
            "io.lance.table.version.deleted",
            "io.lance.table.version.created",
            "io.lance.batch.committed",
            "io.lance.table.declared",
            "io.lance.batch.committed",
            "io.lance.table.renamed",
            "io.lance.table.dropped",
            "io.lance.table.deregistered",
            "io.lance.namespace.dropped");
    assertThat(positions(events))
        .containsExactly(1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 12L, 13L, 14L);
    for (JsonNode event : events) {
      assertThat(event.get("specversion").asText()).isEqualTo("1.0");
      assertThat(event.get("id").asText())
          .endsWith("." + Long.parseLong(event.get("sequence").asText()));
      assertThat(event.get("sequence").asText()).hasSize(19);
      assertThat(event.get("source").asText()).startsWith("/lance-version-gateway/tenants/feed-");
      assertThat(event.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
    }
    JsonNode first = events.get(2);
    assertThat(first.get("subject").asText()).isEqualTo("ns$t");
    assertThat(first.get("data").get("id").toString()).isEqualTo("[\"ns\",\"t\"]");
    assertThat(first.get("data").get("branch").asText()).isEqualTo("main");
    assertThat(first.get("data").get("version").get("version").asLong()).isEqualTo(1);
    assertThat(first.get("data").get("version").get("manifest_path").asText()).isEqualTo("t/1");
    assertThat(first.get("data").get("transaction_id").asText()).isEqualTo(transaction);
    assertThat(events.get(10).get("data").get("properties").get("new_table").asText())
        .isEqualTo("ns$v");

    List<JsonNode> versions =
        all(
            api,
            1,
            ",\"operation-types\":[\"io.lance.table.version.created\"],"
                + "\"catalog-objects-by-name\":[[\"ns\",\"t\"]]");
    // Version 2 was deleted since: its event names it, without the row that is gone.
    assertThat(versions)
        .extracting(event -> event.get("data").get("version").path("manifest_path").asText(null))
        .containsExactly("t/1", null, "t/2b");
    assertThat(versions.get(1).get("data").get("version").get("version").asLong()).isEqualTo(2);
    // All but the two batch events, which name no one object.
    assertThat(all(api, 100, ",\"catalog-objects-by-name\":[[\"ns\"]]")).hasSize(12);
    assertThat(all(api, 100, ",\"catalog-objects-by-name\":[[\"other\"]]")).isEmpty();
    assertValidCloudEvents(events);
  }

  /** Every event passes the official CloudEvents SDK's strict validation (npm cloudevents). */
  static void assertValidCloudEvents(List<JsonNode> events) throws Exception {
    Path file = Files.createTempFile("events-", ".json");
    try {
      Files.writeString(file, events.toString());
      JsonNode verdict = CLOUDEVENTS.run("validate.mjs", file.toAbsolutePath().toString());
      assertThat(verdict.get("refused")).as("events the SDK refused").isEmpty();
      assertThat(verdict.get("valid").asInt()).isEqualTo(events.size());
    } finally {
      Files.deleteIfExists(file);
    }
  }

  @Test
  void aReadKeyReadsTheFeedAndBadInputIsA4xx() throws Exception {
    String tenant = "feed-read-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    Api writer = gateway.api(gateway.tenantWithKey(tenant));
    writer.post("/v1/namespace/ns/create", "{}").assertOk();
    Api reader = gateway.api(gateway.readKey(tenant));
    JsonNode page = query(reader, "{}").assertOk();
    assertThat(types((toList(page.get("events"))))).containsExactly("io.lance.namespace.created");
    String token = page.get("continuation-token").asText();
    String epoch = token.substring(0, token.indexOf('.'));

    query(reader, "{\"continuation-token\":\"not-a-cursor\"}").assertError(400, 13);
    query(reader, "{\"page-size\":0}").assertError(400, 13);
    query(reader, "{\"page-size\":\"many\"}").assertError(400, 13);
    query(reader, "{\"operation-types\":[\"io.lance.nothing\"]}").assertError(400, 13);
    query(reader, "{\"continuation-token\":\"" + epoch + ".99\"}").assertError(410, 13);
    query(reader, "{\"continuation-token\":\"abc123.1\"}").assertError(410, 13);
    new Api(gateway.baseUrl, null).post("/v1/events", "{}").assertError(401, 16);
    assertThat(query(reader, "{\"continuation-token\":\"" + token + "\"}").assertOk().get("events"))
        .isEmpty();
  }

  @Test
  void aCursorNeverPassesAChangeThatCommitsLate() throws Exception {
    String tenant = "feed-late-" + java.util.UUID.randomUUID().toString().substring(0, 8);
    Api api = gateway.api(gateway.tenantWithKey(tenant));
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    String before = query(api, "{}").assertOk().get("continuation-token").asText();
    CompletableFuture<Api.Response> later;
    try (Connection slow = gateway.jdbc()) {
      slow.setAutoCommit(false);
      try (PreparedStatement insert =
          slow.prepareStatement(
              "INSERT INTO audit_events (tenant_id, operation, credential, object, version,"
                  + " transaction_id, request_id, context) SELECT id, 'DeclareTable',"
                  + " '{slow-writer}', '{ns$late}', '{NULL}', '{NULL}', '{NULL}', '{\"{}\"}'"
                  + " FROM tenants WHERE name = ? RETURNING last_position")) {
        insert.setString(1, tenant);
        try (var taken = insert.executeQuery()) {
          assertThat(taken.next()).isTrue();
          assertThat(taken.getLong(1)).isEqualTo(2);
        }
      }
      // The next change of the tenant takes the next position only once this one has committed.
      later = api.postAsync("/v1/namespace/other/create", "{}");
      Thread.sleep(500);
      assertThat(later).isNotDone();
      JsonNode whileOpen = query(api, "{\"continuation-token\":\"" + before + "\"}").assertOk();
      assertThat(whileOpen.get("events")).isEmpty();
      assertThat(whileOpen.get("continuation-token").asText()).isEqualTo(before);
      slow.commit();
    }
    later.get(30, TimeUnit.SECONDS).assertOk();
    JsonNode after = query(api, "{\"continuation-token\":\"" + before + "\"}").assertOk();
    List<JsonNode> events = (toList(after.get("events")));
    assertThat(types(events))
        .containsExactly("io.lance.table.declared", "io.lance.namespace.created");
    assertThat(positions(events)).containsExactly(2L, 3L);
  }

  @Test
  void theLiveTailSendsEventsAsTheyCommitAndResumesAfterTheLastOne() throws Exception {
    String key = gateway.newTenant("feed-tail");
    Api api = gateway.api(key);
    api.post("/v1/namespace/ns/create", "{}").assertOk();
    api.post("/v1/table/ns%24t/declare", "{}").assertOk();
    String url =
        gateway.baseUrl + "/v1/events/stream?operation-types=io.lance.table.version.created";
    String last;
    try (Sse tail = new Sse(url, key, null)) {
      assertThat(tail.status).isEqualTo(200);
      assertThat(tail.contentType).startsWith("text/event-stream");
      assertThat(tail.contentEncoding).isNotEqualTo("gzip");
      api.post("/v1/table/ns%24t/version/create", Api.createBody(1, "t/1")).assertOk();
      Sse.Message one = tail.next();
      assertThat(one.json().get("data").get("version").get("version").asLong()).isEqualTo(1);
      assertThat(one.id()).isEqualTo(one.json().get("id").asText());
      api.post("/v1/table/ns%24t/version/create", Api.createBody(2, "t/2")).assertOk();
      Sse.Message two = tail.next();
      assertThat(two.json().get("data").get("version").get("version").asLong()).isEqualTo(2);
      last = two.id();
      api.post("/v1/table/ns%24t/version/create", Api.createBody(3, "t/3")).assertOk();
    }
    api.post("/v1/table/ns%24t/version/create", Api.createBody(4, "t/4")).assertOk();
    try (Sse resumed = new Sse(url, key, last)) {
      assertThat(resumed.next().json().get("data").get("version").get("version").asLong())
          .isEqualTo(3);
      assertThat(resumed.next().json().get("data").get("version").get("version").asLong())
          .isEqualTo(4);
    }
    try (Sse gone = new Sse(url, key, "abc.1")) {
      assertThat(gone.status).isEqualTo(410);
      assertThat(gone.errorBody()).contains("\"code\":13");
    }
  }

  private static List<JsonNode> toList(JsonNode array) {
    List<JsonNode> list = new ArrayList<>();
    array.forEach(list::add);
    return list;
  }
}
