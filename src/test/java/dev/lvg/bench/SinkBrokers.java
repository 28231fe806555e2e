package dev.lvg.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.nats.client.Connection;
import io.nats.client.Dispatcher;
import io.nats.client.Nats;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * What {@code bench/sinks.sh} needs of the brokers besides the brokers: a cluster id to format
 * Kafka's storage with ({@code cluster-id}); the topic the gateway publishes into ({@code topic
 * <bootstrap> <name> <partitions>}); and each sink's lag ({@code lag <bootstrap> <topic> <nats url>
 * <subject prefix> <seconds>}): a consumer of each broker, with the official clients, from the
 * newest message on for that long, timing every event from its {@code time} (when its commit began)
 * to its arrival, then one line per sink, {@code LVG-SINK-LAG sink=... events=... p50=... p99=...
 * max=...} (milliseconds).
 */
public final class SinkBrokers {
  private SinkBrokers() {}

  public static void main(String[] args) throws Exception {
    if (args[0].equals("cluster-id")) {
      System.out.println(Uuid.randomUuid());
      return;
    }
    if (args[0].equals("lag")) {
      lag(args[1], args[2], args[3], args[4], Integer.parseInt(args[5]));
      return;
    }
    Properties properties = new Properties();
    properties.put("bootstrap.servers", args[1]);
    try (Admin admin = Admin.create(properties)) {
      admin
          .createTopics(List.of(new NewTopic(args[2], Integer.parseInt(args[3]), (short) 1)))
          .all()
          .get(60, TimeUnit.SECONDS);
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private static void lag(
      String bootstrap, String topic, String natsUrl, String subjects, int seconds)
      throws Exception {
    List<Long> nats = Collections.synchronizedList(new ArrayList<>());
    List<Long> kafka = new ArrayList<>();
    Properties properties = new Properties();
    properties.put("bootstrap.servers", bootstrap);
    try (Connection connection = Nats.connect(natsUrl);
        KafkaConsumer<byte[], byte[]> consumer =
            new KafkaConsumer<>(
                properties, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      // Plain subscribers see what JetStream stores, as it stores it.
      Dispatcher dispatcher =
          connection.createDispatcher(
              message -> {
                try {
                  String time = JSON.readTree(message.getData()).path("time").asText();
                  nats.add(System.currentTimeMillis() - millis(time));
                } catch (java.io.IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      dispatcher.subscribe(subjects + ".>");
      List<TopicPartition> partitions = new ArrayList<>();
      consumer
          .partitionsFor(topic)
          .forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
      consumer.assign(partitions);
      consumer.seekToEnd(partitions);
      partitions.forEach(consumer::position);
      long until = System.currentTimeMillis() + seconds * 1000L;
      while (System.currentTimeMillis() < until) {
        for (ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100))) {
          Header time = record.headers().lastHeader("ce_time");
          kafka.add(
              System.currentTimeMillis()
                  - millis(new String(time.value(), StandardCharsets.UTF_8)));
        }
      }
      dispatcher.unsubscribe(subjects + ".>");
    }
    report("kafka", kafka);
    synchronized (nats) {
      report("nats", nats);
    }
  }

  private static long millis(String time) {
    return OffsetDateTime.parse(time).toInstant().toEpochMilli();
  }

  private static void report(String sink, List<Long> lags) {
    System.out.println(
        "LVG-SINK-LAG sink="
            + sink
            + " events="
            + lags.size()
            + " p50="
            + FeedBench.percentile(lags, 0.5)
            + " p99="
            + FeedBench.percentile(lags, 0.99)
            + " max="
            + FeedBench.percentile(lags, 1.0));
  }
}
