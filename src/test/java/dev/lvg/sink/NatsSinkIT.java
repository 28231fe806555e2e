package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import dev.lvg.config.SinkSettings;
import io.nats.client.api.MessageInfo;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change feed published into NATS JetStream, against a real {@code nats-server} (Debian's
 * package) started here on a free port, read back with the official client: every committed change
 * is in the stream once, each table's events in position order, nothing for a refused request or a
 * replay; through a broker stopped for 30 s while writers commit.
 */
class NatsSinkIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String STREAM = "LANCE_FEED_IT";
  private static final String ADMIN = "admin-" + UUID.randomUUID();
  private static final int WRITERS = SinkLoad.WRITERS;
  private static final int TABLES = 200;
  private static NatsBroker broker;
  private static int port;

  @BeforeAll
  static void startBroker() throws Exception {
    broker = new NatsBroker();
    port = broker.port();
  }

  @AfterAll
  static void stopBroker() {
    broker.close();
  }

  /** A gateway's settings: publishing {@code tenant}'s feed into a broker on {@code brokerPort}. */
  private static Map<String, String> settings(
      int brokerPort, String stream, String prefix, String tenant) {
    return Map.of(
        "LVG_DB_URL",
        TestGateway.shared().databaseUrl(),
        "LVG_FEED_NATS_URL",
        "nats://127.0.0.1:" + brokerPort,
        "LVG_FEED_NATS_STREAM",
        stream,
        "LVG_FEED_NATS_SUBJECT_PREFIX",
        prefix,
        "LVG_FEED_SINK_TENANTS",
        tenant,
        "LVG_FEED_SINK_POLL_MS",
        "50",
        "LVG_ADMIN_API_KEY",
        ADMIN);
  }

  /** The nats sink as {@code GET /admin/v1/sinks} describes it. */
  private static JsonNode described(TestGateway gw) {
    JsonNode sinks =
        Api.call(gw.baseUrl, "GET", "/admin/v1/sinks", null, ADMIN).assertOk().get("sinks");
    assertThat(sinks).hasSize(1);
    assertThat(sinks.get(0).get("sink").asText()).isEqualTo("nats");
    return sinks.get(0);
  }

  @Test
  void everyCommittedChangeIsInTheStreamOnceInTableOrderThroughABrokerOutage() throws Exception {
    String tenant = "nats-" + UUID.randomUUID().toString().substring(0, 8);
    TestGateway gw = TestGateway.dedicated(settings(port, STREAM, "it.feed", tenant));
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      Api owner = gw.api(gw.tenantWithKey(tenant));
      owner.post("/v1/namespace/ns/create", "{}").assertOk();
      SinkLoad.commit(owner, writers, TABLES, 1, 2);
      awaitStream(SinkLoad.expected(owner).size(), 30);

      // The broker goes away for 30 s while the writers go on, then comes back.
      broker.stop();
      long downAt = System.nanoTime();
      SinkLoad.commit(owner, writers, TABLES, 3, 3);
      Thread.sleep(Math.max(0, 30_000 - (System.nanoTime() - downAt) / 1_000_000));
      assertThat(Metrics.scrape(gw).value("lvg_feed_sink_lag_events{sink=\"nats\"}"))
          .as("the lag while the broker is away")
          .isPositive();
      assertThat(described(gw).get("lag_events").asLong()).isPositive();
      broker.start();
      SinkLoad.commit(owner, writers, TABLES, 4, 4);

      List<String> expected = SinkLoad.expected(owner);
      assertThat(expected).hasSize(1 + TABLES * 5);
      List<MessageInfo> stored = awaitStream(expected.size(), 60);
      List<String> ids = new ArrayList<>();
      Map<String, Long> lastBySubject = new HashMap<>();
      for (MessageInfo message : stored) {
        JsonNode event = MAPPER.readTree(message.getData());
        String id = event.get("id").asText();
        assertThat(message.getHeaders().getFirst("Nats-Msg-Id")).matches("[0-9]+-\\Q" + id + "\\E");
        ids.add(id);
        long position = Long.parseLong(event.get("sequence").asText());
        Long before = lastBySubject.put(message.getSubject(), position);
        assertThat(before == null || before < position)
            .as("%s: position %d after %d", message.getSubject(), position, before)
            .isTrue();
        assertThat(message.getSubject()).startsWith("it.feed." + tenant + ".ns");
      }
      assertThat(ids).doesNotHaveDuplicates();
      assertThat(new HashSet<>(ids)).isEqualTo(Set.copyOf(expected));
      assertThat(Metrics.scrape(gw).value("lvg_feed_sink_lag_events{sink=\"nats\"}")).isZero();
      assertThat(Metrics.scrape(gw).value("lvg_feed_sink_leader{sink=\"nats\"}")).isEqualTo(1.0);
      JsonNode sink = described(gw);
      assertThat(sink.get("lag_events").asLong()).isZero();
      assertThat(sink.get("holder").isTextual()).isTrue();
      assertThat(sink.get("lease_until").asLong())
          .isGreaterThan(System.currentTimeMillis() - 10_000);
    } finally {
      writers.shutdownNow();
      gw.gateway.close();
    }
  }

  @Test
  void whenThePublishingGatewayStopsTheOtherTakesTheSinkOverAndNothingIsLost() throws Exception {
    String tenant = "natsha-" + UUID.randomUUID().toString().substring(0, 8);
    String stream = "LANCE_FEED_TAKEOVER";
    Map<String, String> settings = settings(port, stream, "it.takeover", tenant);
    TestGateway one = TestGateway.dedicated(settings);
    TestGateway two = TestGateway.dedicated(settings);
    List<TestGateway> running = new ArrayList<>(List.of(one, two));
    try {
      String key = one.tenantWithKey(tenant);
      Api owner = one.api(key);
      owner.post("/v1/namespace/ns/create", "{}").assertOk();
      owner.post("/v1/table/ns%24t/declare", "{}").assertOk();
      for (int v = 1; v <= 50; v++) {
        owner.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
      }
      awaitStream(stream, 52, 30);
      double first = Metrics.scrape(one).value("lvg_feed_sink_leader{sink=\"nats\"}");
      double second = Metrics.scrape(two).value("lvg_feed_sink_leader{sink=\"nats\"}");
      assertThat(first + second).as("one gateway holds the sink").isEqualTo(1.0);
      TestGateway holder = first == 1.0 ? one : two;
      TestGateway other = holder == one ? two : one;
      holder.gateway.close();
      running.remove(holder);
      Api writer = other.api(key);
      for (int v = 51; v <= 100; v++) {
        writer.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
      }
      List<MessageInfo> stored = awaitStream(stream, 102, 30);
      List<Long> positions = new ArrayList<>();
      for (MessageInfo message : stored) {
        positions.add(Long.parseLong(MAPPER.readTree(message.getData()).get("sequence").asText()));
      }
      assertThat(positions).isSorted().doesNotHaveDuplicates().hasSize(102);
      assertThat(Metrics.scrape(other).value("lvg_feed_sink_leader{sink=\"nats\"}")).isEqualTo(1.0);
    } finally {
      running.forEach(gateway -> gateway.gateway.close());
    }
  }

  @Test
  void withTenantsSelectedThroughTheAdminApiOnlyThoseArePublished() throws Exception {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String first = "natssel-a-" + suffix;
    String second = "natssel-b-" + suffix;
    String stream = "LANCE_FEED_SELECTED";
    TestGateway gw =
        TestGateway.dedicated(
            settings(port, stream, "it.selected", SinkSettings.SELECTED_BY_ADMIN));
    try {
      Api one = gw.api(gw.tenantWithKey(first));
      Api two = gw.api(gw.tenantWithKey(second));
      for (Api owner : List.of(one, two)) {
        owner.post("/v1/namespace/ns/create", "{}").assertOk();
        owner.post("/v1/table/ns%24t/declare", "{}").assertOk();
        for (int v = 1; v <= 3; v++) {
          owner.post("/v1/table/ns%24t/version/create", Api.createBody(v, "t/" + v)).assertOk();
        }
      }
      assertThat(described(gw).get("publishes").asText()).isEqualTo("selected");
      assertThat(described(gw).get("tenants")).isEmpty();
      assertThat(described(gw).get("lag_events").asLong()).isZero();

      JsonNode selected =
          Api.call(gw.baseUrl, "PUT", "/admin/v1/sinks/nats/tenants/" + first, null, ADMIN)
              .assertOk();
      assertThat(selected.get("selected").asBoolean()).isTrue();
      List<MessageInfo> stored = awaitStream(stream, 5, 30);
      assertThat(stored).allMatch(m -> m.getSubject().startsWith("it.selected." + first + "."));
      assertThat(described(gw).get("tenants")).extracting(JsonNode::asText).containsExactly(first);

      // Selected later, a tenant is published from the oldest event its feed keeps.
      Api.call(gw.baseUrl, "PUT", "/admin/v1/sinks/nats/tenants/" + second, null, ADMIN).assertOk();
      Api.call(gw.baseUrl, "PUT", "/admin/v1/sinks/nats/tenants/" + second, null, ADMIN).assertOk();
      stored = awaitStream(stream, 10, 30);
      assertThat(stored.subList(5, 10))
          .allMatch(m -> m.getSubject().startsWith("it.selected." + second + "."));

      JsonNode removed =
          Api.call(gw.baseUrl, "DELETE", "/admin/v1/sinks/nats/tenants/" + first, null, ADMIN)
              .assertOk();
      assertThat(removed.get("selected").asBoolean()).isFalse();
      one.post("/v1/table/ns%24t/version/create", Api.createBody(4, "t/4")).assertOk();
      two.post("/v1/table/ns%24t/version/create", Api.createBody(4, "t/4")).assertOk();
      stored = awaitStream(stream, 11, 30);
      assertThat(stored.get(10).getSubject()).isEqualTo("it.selected." + second + ".ns.t");
      Thread.sleep(1_000);
      assertThat(awaitStream(stream, 11, 1)).hasSize(11);
      assertThat(described(gw).get("tenants")).extracting(JsonNode::asText).containsExactly(second);

      // Each change is in the tenant's audit trail, once; bad names are refused.
      List<String> operations = new ArrayList<>();
      Api.call(gw.baseUrl, "GET", "/admin/v1/tenants/" + second + "/audit", null, ADMIN)
          .assertOk()
          .get("events")
          .forEach(event -> operations.add(event.get("operation").asText()));
      assertThat(operations).containsOnlyOnce("AddSinkTenant");
      Api.call(gw.baseUrl, "PUT", "/admin/v1/sinks/kinesis/tenants/" + first, null, ADMIN)
          .assertError(400, 13);
      Api.call(gw.baseUrl, "PUT", "/admin/v1/sinks/nats/tenants/nobody-" + suffix, null, ADMIN)
          .assertError(404, 1);
    } finally {
      gw.gateway.close();
    }
  }

  @Test
  void aSinkThatCannotPublishRaisesItsGaugesAndCommitsGoOn() throws Exception {
    int nowhere;
    try (ServerSocket free = new ServerSocket(0)) {
      nowhere = free.getLocalPort();
    }
    String tenant = "natsdown-" + UUID.randomUUID().toString().substring(0, 8);
    TestGateway gw = TestGateway.dedicated(settings(nowhere, "LANCE_FEED", "lance", tenant));
    try {
      SinkLoad.commitWhileRefused(gw, gw.api(gw.tenantWithKey(tenant)), "nats");
    } finally {
      gw.gateway.close();
    }
  }

  /** Every message of the stream once it holds {@code count}, read with the official client. */
  private static List<MessageInfo> awaitStream(int count, int seconds) throws Exception {
    return broker.awaitStream(STREAM, count, seconds);
  }

  private static List<MessageInfo> awaitStream(String stream, int count, int seconds)
      throws Exception {
    return broker.awaitStream(stream, count, seconds);
  }
}
