package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The feed's bounds: heartbeats on a quiet tail, the cap on tails, a slow consumer cut off with its
 * cursor, expiry and its 410, and every tail ended with its cursor when the gateway stops.
 */
class FeedStreamIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static TestGateway gateway;

  @BeforeAll
  static void start() {
    gateway =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_EVENTS_HEARTBEAT_MILLIS", "200",
                "LVG_EVENTS_MAX_STREAMS", "3",
                "LVG_EVENTS_SLOW_CONSUMER_MILLIS", "500"));
  }

  @AfterAll
  static void stop() {
    gateway.gateway.close();
  }

  private static String tenant(String prefix) {
    return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
  }

  private static String stream(TestGateway gw) {
    return gw.baseUrl + "/v1/events/stream";
  }

  @Test
  void aQuietTailGetsHeartbeats() throws Exception {
    String key = gateway.newTenant("feed-quiet");
    try (Sse tail = new Sse(stream(gateway), key, null, 5_000)) {
      assertThat(tail.status).isEqualTo(200);
      assertThat(tail.nextComment()).isTrue(); // the opening comment naming the cursor
      long started = System.nanoTime();
      assertThat(tail.nextComment()).isTrue();
      assertThat(tail.nextComment()).isTrue();
      assertThat((System.nanoTime() - started) / 1_000_000).isBetween(150L, 4_000L);
    }
  }

  @Test
  void tailsBeyondTheCapAreRefusedUntilOneLeaves() throws Exception {
    String key = gateway.newTenant("feed-cap");
    List<Sse> open = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        open.add(new Sse(stream(gateway), key, null));
        assertThat(open.get(i).status).isEqualTo(200);
        assertThat(open.get(i).nextComment()).isTrue();
      }
      try (Sse refused = new Sse(stream(gateway), key, null)) {
        assertThat(refused.status).isEqualTo(503);
        assertThat(refused.errorBody()).contains("\"code\":17").contains("LVG_EVENTS_MAX_STREAMS");
      }
      open.remove(0).close();
      long deadline = System.nanoTime() + 5_000_000_000L;
      int status = 0;
      while (status != 200 && System.nanoTime() < deadline) {
        Thread.sleep(50);
        try (Sse again = new Sse(stream(gateway), key, null)) {
          status = again.status;
        }
      }
      assertThat(status).isEqualTo(200);
    } finally {
      open.forEach(Sse::close);
    }
  }

  @Test
  void aConsumerThatStopsReadingIsCutOffWithItsCursor() throws Exception {
    String tenant = tenant("feed-slow");
    String key = gateway.tenantWithKey(tenant);
    int events = 30_000;
    // One audit row of 30,000 version events (about 9 MB on the wire): more than the
    // connection's buffers hold.
    try (Connection db = gateway.jdbc();
        PreparedStatement insert =
            db.prepareStatement(
                "INSERT INTO audit_events (tenant_id, operation, credential, object, version,"
                    + " transaction_id, request_id, context)"
                    + " SELECT id, 'CreateTableVersion', array_fill('bulk'::text, ARRAY[?]),"
                    + " array_fill('ns$bulk'::text, ARRAY[?]), ?,"
                    + " array_fill(NULL::uuid, ARRAY[?]), array_fill('r'::text, ARRAY[?]),"
                    + " array_fill('{}'::text, ARRAY[?]) FROM tenants WHERE name = ?")) {
      Long[] versions = new Long[events];
      for (int i = 0; i < events; i++) {
        versions[i] = i + 1L;
      }
      for (int i = 1; i <= 6; i++) {
        insert.setInt(i, events);
      }
      // An array sent as a value rather than made by a subquery, which Citus refuses beside a
      // reference table.
      insert.setArray(3, db.createArrayOf("bigint", versions));
      insert.setString(7, tenant);
      assertThat(insert.executeUpdate()).isEqualTo(1);
    }
    int port = Integer.parseInt(gateway.baseUrl.substring(gateway.baseUrl.lastIndexOf(':') + 1));
    try (Socket socket = new Socket()) {
      socket.setReceiveBufferSize(2048);
      socket.connect(new InetSocketAddress("127.0.0.1", port));
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET /v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nx-api-key: " + key + "\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      Thread.sleep(3_000); // reads nothing while the gateway fills the connection
      socket.setSoTimeout(5_000);
      ByteArrayOutputStream received = new ByteArrayOutputStream();
      InputStream in = socket.getInputStream();
      byte[] buffer = new byte[65536];
      try {
        for (int n = in.read(buffer); n > 0; n = in.read(buffer)) {
          received.write(buffer, 0, n);
          if (received.toString(StandardCharsets.UTF_8).contains("event: cutoff")
              && received.toString(StandardCharsets.UTF_8).endsWith("0\r\n\r\n")) {
            break;
          }
        }
      } catch (SocketTimeoutException stillOpen) {
        // the answer below tells what came
      }
      String text = received.toString(StandardCharsets.UTF_8);
      Matcher cutoff = Pattern.compile("event: cutoff\ndata: (\\{.*\\})\n").matcher(text);
      assertThat(cutoff.find()).as("a cutoff event in %d bytes", text.length()).isTrue();
      String resumeFrom = MAPPER.readTree(cutoff.group(1)).get("continuation-token").asText();
      Matcher ids = Pattern.compile("\nid: (\\S+)\n").matcher(text);
      String lastId = null;
      int sent = 0;
      while (ids.find()) {
        lastId = ids.group(1);
        sent++;
      }
      assertThat(sent).isBetween(1, events - 1);
      assertThat(resumeFrom).isEqualTo(lastId);
      // Resuming from the cursor goes on with the next event.
      try (Sse tail = new Sse(stream(gateway), key, resumeFrom)) {
        long after = Long.parseLong(resumeFrom.substring(resumeFrom.indexOf('.') + 1));
        assertThat(tail.next().id()).endsWith("." + (after + 1));
      }
    }
  }

  @Test
  void anExpiredCursorIsGoneAndTheFeedStartsAfterIt() throws Exception {
    TestGateway expiring =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_EVENTS_RETENTION", "1s",
                "LVG_EVENTS_EXPIRY_MILLIS", "200"));
    try {
      Api api = expiring.api(expiring.newTenant("feed-expiry"));
      api.post("/v1/namespace/old/create", "{}").assertOk();
      String old = api.post("/v1/events", "{}").assertOk().get("continuation-token").asText();
      String start = old.substring(0, old.indexOf('.')) + ".0";
      long deadline = System.nanoTime() + 15_000_000_000L;
      int status = 200;
      while (status != 410 && System.nanoTime() < deadline) {
        Thread.sleep(100);
        status = api.post("/v1/events", "{\"continuation-token\":\"" + start + "\"}").status();
      }
      api.post("/v1/events", "{\"continuation-token\":\"" + start + "\"}").assertError(410, 13);
      // The old event's own cursor is where the kept feed starts: still served, and empty.
      JsonNode rest = api.post("/v1/events", "{\"continuation-token\":\"" + old + "\"}").assertOk();
      assertThat(rest.get("events")).isEmpty();
      api.post("/v1/namespace/new/create", "{}").assertOk();
      JsonNode kept = api.post("/v1/events", "{}").assertOk();
      assertThat(kept.get("events")).hasSize(1);
      assertThat(kept.get("events").get(0).get("subject").asText()).isEqualTo("new");
      assertThat(kept.get("events").get(0).get("sequence").asText()).endsWith("2");
      String metrics =
          Api.send(
                  java.net.http.HttpRequest.newBuilder(
                          java.net.URI.create(expiring.managementUrl + "/metrics"))
                      .build())
              .text();
      assertThat(metrics).containsPattern("lvg_feed_events_expired_total [1-9]");
    } finally {
      expiring.gateway.close();
    }
  }

  @Test
  void aStoppingGatewayEndsEveryTailWithItsCursor() throws Exception {
    TestGateway stopping =
        TestGateway.dedicated(Map.of("LVG_DB_URL", TestGateway.shared().databaseUrl()));
    String key = stopping.newTenant("feed-stop");
    stopping.api(key).post("/v1/namespace/ns/create", "{}").assertOk();
    try (Sse tail = new Sse(stream(stopping), key, null, 20_000)) {
      Sse.Message first = tail.next();
      assertThat(first.event()).isEqualTo("message");
      Thread closer = new Thread(stopping.gateway::close);
      closer.start();
      Sse.Message last = tail.next();
      assertThat(last.event()).isEqualTo("shutdown");
      assertThat(last.json().get("continuation-token").asText()).isEqualTo(first.id());
      assertThat(tail.next()).isNull();
      closer.join(30_000);
    }
  }
}
