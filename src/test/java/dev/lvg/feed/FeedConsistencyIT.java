package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The feed under load, through two gateways on one database: 16 writers commit to 200 tables with
 * retries, refusals and conflicts while 4 readers page and 4 live tails reconnect at random, each
 * to either gateway. Every reader must see exactly the committed versions: every position once,
 * none missing, none that never committed, and each table's versions in order.
 */
class FeedConsistencyIT {
  private static final int TABLES = 200;
  private static final int WRITERS = 16;
  private static final int COMMITS = 3000;
  private static TestGateway first;
  private static TestGateway second;

  @BeforeAll
  static void start() {
    String db = TestGateway.shared().databaseUrl();
    Map<String, String> settings =
        Map.of(
            "LVG_DB_URL", db,
            "LVG_ADMISSION_MAX_WAIT_MS", "30000",
            "LVG_EVENTS_POLL_MILLIS", "5",
            // No heartbeats: a tail that reads nothing for a while times out and reconnects.
            "LVG_EVENTS_HEARTBEAT_MILLIS", "600000");
    first = TestGateway.dedicated(settings);
    second = TestGateway.dedicated(settings);
  }

  @AfterAll
  static void stop() {
    first.gateway.close();
    second.gateway.close();
  }

  /** What a reader saw: the events' positions, and per table its versions, in feed order. */
  private record Seen(List<Long> positions, List<String> versions) {
    static Seen of(List<JsonNode> events) {
      List<Long> positions = new ArrayList<>();
      List<String> versions = new ArrayList<>();
      for (JsonNode event : events) {
        positions.add(Long.parseLong(event.get("sequence").asText()));
        if (event.get("type").asText().equals("io.lance.table.version.created")) {
          versions.add(
              event.get("subject").asText()
                  + "@"
                  + event.get("data").get("version").get("version").asLong());
        }
      }
      return new Seen(positions, versions);
    }
  }

  @Test
  void everyReaderSeesExactlyTheCommittedVersionsInOrder() throws Exception {
    String tenant = "feed-load-" + UUID.randomUUID().toString().substring(0, 8);
    String key = first.tenantWithKey(tenant);
    Api[] gateways = {first.api(key), second.api(key)};
    gateways[0].post("/v1/namespace/ns/create", "{}").assertOk();
    for (int t = 0; t < TABLES; t++) {
      gateways[t % 2].post("/v1/table/ns%24t" + t + "/declare", "{}").assertOk();
    }
    ExecutorService pool = Executors.newCachedThreadPool();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicLongArray latest = new AtomicLongArray(TABLES);
    AtomicInteger committed = new AtomicInteger();
    Set<String> acknowledged = ConcurrentHashMap.newKeySet();
    List<Future<?>> writers = new ArrayList<>();
    for (int w = 0; w < WRITERS; w++) {
      Api api = gateways[w % 2];
      writers.add(pool.submit(() -> write(api, latest, committed, acknowledged)));
    }
    List<Future<Seen>> readers = new ArrayList<>();
    for (int r = 0; r < 4; r++) {
      readers.add(pool.submit(() -> Seen.of(page(gateways, writing))));
    }
    for (int s = 0; s < 4; s++) {
      readers.add(
          pool.submit(() -> Seen.of(tail(new TestGateway[] {first, second}, key, writing))));
    }
    for (Future<?> writer : writers) {
      writer.get(5, TimeUnit.MINUTES);
    }
    writing.set(false);

    Set<String> stored = storedVersions(tenant);
    assertThat(stored).isEqualTo(acknowledged);
    long events = 1 + TABLES + stored.size();
    List<Long> every = new ArrayList<>();
    for (long p = 1; p <= events; p++) {
      every.add(p);
    }
    for (Future<Seen> reader : readers) {
      Seen seen = reader.get(5, TimeUnit.MINUTES);
      assertThat(seen.positions()).isEqualTo(every);
      assertThat(new HashSet<>(seen.versions())).isEqualTo(stored);
      assertThat(seen.versions()).hasSize(stored.size());
      Map<String, Long> last = new HashMap<>();
      for (String version : seen.versions()) {
        String table = version.substring(0, version.indexOf('@'));
        long number = Long.parseLong(version.substring(version.indexOf('@') + 1));
        assertThat(number).as(version).isEqualTo(last.getOrDefault(table, 0L) + 1);
        last.put(table, number);
      }
    }
    pool.shutdownNow();
  }

  /**
   * Commits until {@link #COMMITS} versions are in, with replays, rivals and refusals among them.
   */
  private static Void write(
      Api api, AtomicLongArray latest, AtomicInteger committed, Set<String> acknowledged) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    while (committed.get() < COMMITS) {
      int t = random.nextInt(TABLES);
      long version = latest.get(t) + 1;
      String path = "/v1/table/ns%24t" + t + "/version/create";
      int roll = random.nextInt(100);
      if (roll < 5 && version > 1) {
        // A chain may start at any version, but not go on past a gap.
        api.post(path, Api.createBody(version + 1000, "gap")).assertError(409, 14);
        continue;
      }
      if (roll < 8) {
        api.post(path, "{\"version\":\"next\"}").assertError(400, 13);
        continue;
      }
      String manifest = "t" + t + "/" + version + "-" + UUID.randomUUID();
      Api.Response answer = api.post(path, Api.createBody(version, manifest));
      if (answer.status() == 200) {
        acknowledged.add("ns$t" + t + "@" + version);
        latest.accumulateAndGet(t, version, Math::max);
        committed.incrementAndGet();
        if (roll < 30) {
          // The same request again, as a client whose answer was lost: the stored row, no event.
          assertThat(api.post(path, Api.createBody(version, manifest)).status()).isEqualTo(200);
        }
      } else if (answer.status() == 409) {
        latest.accumulateAndGet(t, version, Math::max);
      } else {
        assertThat(answer.status()).as(answer.text()).isEqualTo(503);
      }
    }
    return null;
  }

  /** Pages with random sizes through either gateway until writing stopped and the end is read. */
  private static List<JsonNode> page(Api[] gateways, AtomicBoolean writing) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<JsonNode> events = new ArrayList<>();
    String token = "";
    boolean last = false;
    while (true) {
      boolean stillWriting = writing.get();
      JsonNode page =
          gateways[random.nextInt(2)]
              .post(
                  "/v1/events",
                  "{\"continuation-token\":\""
                      + token
                      + "\",\"page-size\":"
                      + (1 + random.nextInt(50))
                      + "}")
              .assertOk();
      page.get("events").forEach(events::add);
      boolean moved = !page.get("continuation-token").asText().equals(token);
      token = page.get("continuation-token").asText();
      if (!moved) {
        if (last) {
          return events;
        }
        last = !stillWriting;
      }
    }
  }

  /**
   * Tails through either gateway, leaving after a random number of events and resuming after the
   * last one seen, until writing stopped and nothing new comes for a while.
   */
  private static List<JsonNode> tail(TestGateway[] gateways, String key, AtomicBoolean writing)
      throws Exception {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<JsonNode> events = new ArrayList<>();
    String last = null;
    while (true) {
      boolean stillWriting = writing.get();
      TestGateway gateway = gateways[random.nextInt(2)];
      int leaveAfter = 1 + random.nextInt(300);
      int received = 0;
      try (Sse sse =
          new Sse(gateway.baseUrl + "/v1/events/stream", key, last, stillWriting ? 5_000 : 1_000)) {
        assertThat(sse.status).isEqualTo(200);
        while (received < leaveAfter) {
          Sse.Message message;
          try {
            message = sse.next();
          } catch (java.net.SocketTimeoutException quiet) {
            if (!stillWriting) {
              return events;
            }
            break;
          }
          assertThat(message).isNotNull();
          assertThat(message.event()).isEqualTo("message");
          events.add(message.json());
          last = message.id();
          received++;
        }
      }
    }
  }

  private static Set<String> storedVersions(String tenant) throws Exception {
    Set<String> stored = new HashSet<>();
    try (Connection db = first.jdbc();
        PreparedStatement select =
            db.prepareStatement(
                "SELECT t.name, v.version FROM table_versions v JOIN lance_tables t"
                    + " ON t.tenant_id = v.tenant_id AND t.id = v.table_id"
                    + " JOIN tenants n ON n.id = v.tenant_id WHERE n.name = ?")) {
      select.setString(1, tenant);
      try (ResultSet rows = select.executeQuery()) {
        while (rows.next()) {
          stored.add("ns$" + rows.getString(1) + "@" + rows.getLong(2));
        }
      }
    }
    return stored;
  }
}
