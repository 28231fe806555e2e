package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.GatewayProcess;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import io.nats.client.api.MessageInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Two gateway processes (the packaged jar) publishing one tenant's feed into a real nats-server,
 * and the one holding the sink killed with SIGKILL while writers commit through the other: the
 * other takes the lease within seconds, the stream holds every committed change once and in table
 * order, and what the survivor sent again is counted, as re-sent and (JetStream dropping it by its
 * id) as a duplicate.
 */
class SinkKillIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final int TABLES = 100;
  private static final String STREAM = "LANCE_FEED_KILL";

  private static GatewayProcess start(NatsBroker broker, String tenant, String key)
      throws Exception {
    return GatewayProcess.start(
        Map.of(
            "LVG_DB_URL",
            TestGateway.shared().databaseUrl(),
            "LVG_BOOTSTRAP_TENANT",
            tenant,
            "LVG_BOOTSTRAP_API_KEY",
            key,
            "LVG_FEED_NATS_URL",
            broker.url(),
            "LVG_FEED_NATS_STREAM",
            STREAM,
            "LVG_FEED_NATS_SUBJECT_PREFIX",
            "it.kill",
            "LVG_FEED_SINK_TENANTS",
            tenant));
  }

  private static double meter(GatewayProcess gateway, String name) {
    return Metrics.scrape(gateway.managementUrl()).value(name + "{sink=\"nats\"}");
  }

  @Test
  void whenTheHolderIsKilledTheOtherPublishesEverythingOnceAndCountsWhatItSentAgain()
      throws Exception {
    String tenant = "natskill-" + UUID.randomUUID().toString().substring(0, 8);
    String key = "key-" + UUID.randomUUID();
    ExecutorService writers = Executors.newFixedThreadPool(SinkLoad.WRITERS + 1);
    List<GatewayProcess> gateways = new ArrayList<>();
    try (NatsBroker broker = new NatsBroker()) {
      gateways.add(start(broker, tenant, key));
      gateways.add(start(broker, tenant, key));
      Api first = gateways.get(0).api(key);
      first.post("/v1/namespace/ns/create", "{}").assertOk();
      SinkLoad.commit(first, writers, TABLES, 1, 2);
      broker.awaitStream(STREAM, SinkLoad.expected(first).size(), 30);

      GatewayProcess holder =
          gateways.stream().filter(g -> meter(g, "lvg_feed_sink_leader") == 1.0).findFirst().get();
      GatewayProcess survivor = gateways.get(0) == holder ? gateways.get(1) : gateways.get(0);
      assertThat(meter(survivor, "lvg_feed_sink_leader")).isZero();
      double publishedBefore = meter(survivor, "lvg_feed_sink_published_total");
      double duplicatesBefore = meter(survivor, "lvg_feed_sink_duplicates_total");

      // Writers commit through the survivor while the holder publishes; then it is killed.
      Future<?> load =
          writers.submit(
              () -> {
                SinkLoad.commit(survivor.api(key), writers, TABLES, 3, 8);
                return null;
              });
      Thread.sleep(1_500);
      holder.process().destroyForcibly();
      assertThat(holder.process().waitFor(10, TimeUnit.SECONDS)).isTrue();
      long killedAt = System.nanoTime();
      // The holder renewed its lease at most a second before it died, for five seconds: nothing
      // else publishes for three more, so the stream holds exactly what the holder sent.
      Thread.sleep(1_000);
      long sentByHolder = broker.count(STREAM);
      while (meter(survivor, "lvg_feed_sink_leader") != 1.0) {
        assertThat(System.nanoTime() - killedAt)
            .as("the survivor takes the lease within 10 s")
            .isLessThan(TimeUnit.SECONDS.toNanos(10));
        Thread.sleep(100);
      }
      load.get(180, TimeUnit.SECONDS);

      List<String> expected = SinkLoad.expected(survivor.api(key));
      assertThat(expected).hasSize(1 + TABLES * 9);
      List<MessageInfo> stored = broker.awaitStream(STREAM, expected.size(), 60);
      List<String> ids = new ArrayList<>();
      Map<String, Long> lastBySubject = new HashMap<>();
      for (MessageInfo message : stored) {
        JsonNode event = MAPPER.readTree(message.getData());
        ids.add(event.get("id").asText());
        long position = Long.parseLong(event.get("sequence").asText());
        Long before = lastBySubject.put(message.getSubject(), position);
        assertThat(before == null || before < position)
            .as("%s: position %d after %d", message.getSubject(), position, before)
            .isTrue();
      }
      assertThat(ids).doesNotHaveDuplicates();
      assertThat(Set.copyOf(ids)).isEqualTo(new HashSet<>(expected));

      // What the survivor sent: every event the holder had not, and again some it had, each of
      // those counted as re-sent and, dropped by JetStream, as a duplicate.
      double sent = meter(survivor, "lvg_feed_sink_published_total") - publishedBefore;
      double duplicates = meter(survivor, "lvg_feed_sink_duplicates_total") - duplicatesBefore;
      assertThat(sent - duplicates).isEqualTo((double) (expected.size() - sentByHolder));
      assertThat(meter(survivor, "lvg_feed_sink_resent_total")).isGreaterThanOrEqualTo(duplicates);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      while (meter(survivor, "lvg_feed_sink_lag_events") != 0 && System.nanoTime() < deadline) {
        Thread.sleep(100);
      }
      assertThat(meter(survivor, "lvg_feed_sink_lag_events")).isZero();
    } finally {
      writers.shutdownNow();
      for (GatewayProcess gateway : gateways) {
        gateway.stop();
      }
    }
  }
}
