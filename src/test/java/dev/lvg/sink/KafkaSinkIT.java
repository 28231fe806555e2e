package dev.lvg.sink;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.Metrics;
import dev.lvg.TestGateway;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change feed published into Kafka, against a real broker in KRaft mode started from its Maven
 * artifacts, read back with the official consumer: after dropping records by their {@code ce_id}
 * (the producer is idempotent, so none is expected here), every committed change is there once,
 * each table's events in position order on one partition, nothing for a refused request or a
 * replay; through the broker stopped for 30 s while writers commit. Binary mode: the event's
 * attributes are {@code ce_*} headers and its data the value.
 */
class KafkaSinkIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String TOPIC = "lance-feed-it";
  private static final int WRITERS = SinkLoad.WRITERS;
  private static final int TABLES = 64;
  private static KafkaBroker broker;

  @BeforeAll
  static void start() throws Exception {
    broker = new KafkaBroker();
    Properties properties = new Properties();
    properties.put("bootstrap.servers", broker.bootstrap());
    try (Admin admin = Admin.create(properties)) {
      admin
          .createTopics(List.of(new NewTopic(TOPIC, 4, (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }

  @AfterAll
  static void stop() throws Exception {
    broker.close();
  }

  @Test
  void everyCommittedChangeIsThereOnceInTableOrderThroughABrokerOutage() throws Exception {
    String tenant = "kafka-" + UUID.randomUUID().toString().substring(0, 8);
    TestGateway gw = TestGateway.dedicated(settings(tenant, Map.of()));
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    try {
      Api owner = gw.api(gw.tenantWithKey(tenant));
      owner.post("/v1/namespace/ns/create", "{}").assertOk();
      SinkLoad.commit(owner, writers, TABLES, 1, 2);

      broker.stop();
      long downAt = System.nanoTime();
      SinkLoad.commit(owner, writers, TABLES, 3, 3);
      Thread.sleep(Math.max(0, 30_000 - (System.nanoTime() - downAt) / 1_000_000));
      assertThat(Metrics.scrape(gw).value("lvg_feed_sink_lag_events{sink=\"kafka\"}"))
          .as("the lag while the broker is away")
          .isPositive();
      broker.start();
      SinkLoad.commit(owner, writers, TABLES, 4, 4);

      List<String> expected = SinkLoad.expected(owner);
      assertThat(expected).hasSize(1 + TABLES * 5);
      Map<String, ConsumerRecord<byte[], byte[]>> byId = consume(tenant, expected.size(), 120);
      assertThat(byId.keySet()).isEqualTo(Set.copyOf(expected));
      Map<String, Long> lastByKey = new HashMap<>();
      Map<String, Integer> partitionByKey = new HashMap<>();
      for (ConsumerRecord<byte[], byte[]> record : byId.values()) {
        String key = new String(record.key(), StandardCharsets.UTF_8);
        long position = Long.parseLong(header(record, "ce_sequence"));
        Long before = lastByKey.put(key, position);
        assertThat(before == null || before < position)
            .as("%s: position %d after %d", key, position, before)
            .isTrue();
        Integer partition = partitionByKey.putIfAbsent(key, record.partition());
        assertThat(partition == null || partition == record.partition()).isTrue();
        assertThat(key).startsWith(tenant + "/ns");
        JsonNode data = MAPPER.readTree(record.value());
        assertThat(data.get("id").get(0).asText()).isEqualTo("ns");
        assertThat(header(record, "content-type")).isEqualTo("application/json");
      }
    } finally {
      writers.shutdownNow();
      gw.gateway.close();
    }
  }

  @Test
  void aSinkTheBrokerRefusesRaisesItsGaugesAndCommitsGoOn() throws Exception {
    Path wrong = credentials("not-" + KafkaBroker.SASL_PASSWORD);
    for (Map<String, String> refused :
        List.of(
            Map.of("LVG_FEED_KAFKA_TOPIC", "no-such-topic"),
            Map.of(
                "LVG_FEED_KAFKA_BOOTSTRAP_SERVERS",
                broker.saslBootstrap(),
                "LVG_FEED_KAFKA_PROPERTIES",
                wrong.toString()))) {
      String tenant = "kafkano-" + UUID.randomUUID().toString().substring(0, 8);
      TestGateway gw = TestGateway.dedicated(settings(tenant, refused));
      try {
        SinkLoad.commitWhileRefused(gw, gw.api(gw.tenantWithKey(tenant)), "kafka");
      } finally {
        gw.gateway.close();
      }
    }
    // The same listener with the right password takes them.
    String tenant = "kafkasasl-" + UUID.randomUUID().toString().substring(0, 8);
    TestGateway gw =
        TestGateway.dedicated(
            settings(
                tenant,
                Map.of(
                    "LVG_FEED_KAFKA_BOOTSTRAP_SERVERS",
                    broker.saslBootstrap(),
                    "LVG_FEED_KAFKA_PROPERTIES",
                    credentials(KafkaBroker.SASL_PASSWORD).toString())));
    try {
      Api owner = gw.api(gw.tenantWithKey(tenant));
      owner.post("/v1/namespace/ns/create", "{}").assertOk();
      assertThat(consume(tenant, 1, 30)).hasSize(1);
    } finally {
      gw.gateway.close();
    }
  }

  /** A gateway's settings: publishing {@code tenant}'s feed into the broker, then {@code more}. */
  private static Map<String, String> settings(String tenant, Map<String, String> more) {
    Map<String, String> settings = new HashMap<>();
    settings.put("LVG_DB_URL", TestGateway.shared().databaseUrl());
    settings.put("LVG_FEED_KAFKA_BOOTSTRAP_SERVERS", broker.bootstrap());
    settings.put("LVG_FEED_KAFKA_TOPIC", TOPIC);
    settings.put("LVG_FEED_SINK_TENANTS", tenant);
    settings.put("LVG_FEED_SINK_POLL_MS", "50");
    settings.putAll(more);
    return settings;
  }

  /** A client properties file for the SASL listener, with {@code password}. */
  private static Path credentials(String password) throws Exception {
    Path file =
        Files.createTempFile(Path.of("target").toAbsolutePath(), "kafka-client-", ".properties");
    Files.writeString(
        file,
        String.join(
            "\n",
            "security.protocol=SASL_PLAINTEXT",
            "sasl.mechanism=PLAIN",
            "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required"
                + " username=\""
                + KafkaBroker.SASL_USER
                + "\" password=\""
                + password
                + "\";",
            ""));
    return file;
  }

  private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
    return new String(record.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
  }

  /**
   * Every record of {@code tenant} in the topic, first seen of each {@code ce_id} kept, in each
   * partition's order, once {@code count} distinct ids are in.
   */
  private static Map<String, ConsumerRecord<byte[], byte[]>> consume(
      String tenant, int count, int seconds) {
    Properties properties = new Properties();
    properties.put("bootstrap.servers", broker.bootstrap());
    properties.put("group.id", "it-" + UUID.randomUUID());
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(TOPIC)
          .forEach(info -> partitions.add(new TopicPartition(TOPIC, info.partition())));
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<String, ConsumerRecord<byte[], byte[]>> byId = new LinkedHashMap<>();
      long deadline = System.nanoTime() + seconds * 1_000_000_000L;
      while (byId.size() < count && System.nanoTime() < deadline) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(500))) {
          if (new String(record.key(), StandardCharsets.UTF_8).startsWith(tenant + "/")) {
            byId.putIfAbsent(header(record, "ce_id"), record);
          }
        }
      }
      assertThat(byId).as("records in the topic within %d s", seconds).hasSize(count);
      return byId;
    }
  }
}
