package dev.lvg.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.config.SinkSettings;
import dev.lvg.http.Json;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka as a sink, through the official client's idempotent producer ({@code acks=all}): each event
 * a record of the topic keyed by its tenant and object ({@code <tenant>/<names…>}), so a table's
 * events go to one partition in position order, through the producer's own retries too. The
 * CloudEvents Kafka protocol binding writes it: in binary mode (the default) the event's data is
 * the value and its attributes {@code ce_*} headers ({@code ce_id} the event id, for consumers that
 * drop what they have seen); in structured mode the whole event is the value. The topic must exist
 * (checked at the first connection). The client's calls block, so they run on worker threads.
 */
final class KafkaPublisher implements Publisher {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaPublisher.class);
  private static final long ACK_TIMEOUT_SECONDS = 40;

  private final Vertx vertx;
  private final SinkSettings settings;
  private volatile KafkaProducer<byte[], byte[]> producer;

  KafkaPublisher(Vertx vertx, SinkSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
  }

  @Override
  public Future<Void> ready() {
    return producer != null
        ? Future.succeededFuture()
        : vertx.executeBlocking(this::connect, false);
  }

  private Void connect() throws Exception {
    Properties properties = properties();
    try (Admin admin = Admin.create(properties)) {
      // Fails when the topic is missing or the credentials are refused.
      admin
          .describeTopics(List.of(settings.kafkaTopic()))
          .allTopicNames()
          .get(10, TimeUnit.SECONDS);
    }
    properties.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    properties.put(ProducerConfig.ACKS_CONFIG, "all");
    properties.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
    properties.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
    properties.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
    properties.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
    properties.put(ProducerConfig.LINGER_MS_CONFIG, "2");
    properties.put(ProducerConfig.CLIENT_ID_CONFIG, "lance-version-gateway");
    producer =
        new KafkaProducer<>(properties, new ByteArraySerializer(), new ByteArraySerializer());
    LOG.info("publishing the change feed into Kafka topic {}", settings.kafkaTopic());
    return null;
  }

  /** The client's properties: the bootstrap servers, and the file's (TLS, SASL) when set. */
  private Properties properties() throws IOException {
    Properties properties = new Properties();
    if (settings.kafkaPropertiesFile() != null) {
      try (Reader reader = Files.newBufferedReader(Path.of(settings.kafkaPropertiesFile()))) {
        properties.load(reader);
      }
    }
    properties.put("bootstrap.servers", settings.kafkaBootstrapServers());
    return properties;
  }

  @Override
  public Future<Publisher.Published> publish(Tenant tenant, List<ObjectNode> events) {
    return vertx.executeBlocking(() -> publishAll(tenant, events), false);
  }

  private Publisher.Published publishAll(Tenant tenant, List<ObjectNode> events) throws Exception {
    List<java.util.concurrent.Future<RecordMetadata>> acks = new ArrayList<>(events.size());
    Exception refused = null;
    for (ObjectNode event : events) {
      try {
        acks.add(producer.send(record(tenant, event)));
      } catch (Exception e) {
        refused = e;
        break;
      }
    }
    producer.flush();
    int acknowledged = 0;
    for (java.util.concurrent.Future<RecordMetadata> ack : acks) {
      try {
        ack.get(ACK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        acknowledged++;
      } catch (Exception e) {
        return new Publisher.Published(acknowledged, 0, e);
      }
    }
    return new Publisher.Published(acknowledged, 0, refused);
  }

  /** The record of one event, in the binding's binary or structured mode. */
  ProducerRecord<byte[], byte[]> record(Tenant tenant, ObjectNode event) throws IOException {
    StringBuilder key = new StringBuilder(tenant.name());
    for (JsonNode name : event.path("data").path("id")) {
      key.append('/').append(name.asText());
    }
    RecordHeaders headers = new RecordHeaders();
    byte[] value;
    if (settings.kafkaStructured()) {
      headers.add("content-type", bytes("application/cloudevents+json; charset=UTF-8"));
      value = Json.MAPPER.writeValueAsBytes(event);
    } else {
      for (Map.Entry<String, JsonNode> attribute : event.properties()) {
        if (!attribute.getKey().equals("data") && !attribute.getKey().equals("datacontenttype")) {
          headers.add("ce_" + attribute.getKey(), bytes(attribute.getValue().asText()));
        }
      }
      headers.add("content-type", bytes(event.path("datacontenttype").asText("application/json")));
      value = Json.MAPPER.writeValueAsBytes(event.path("data"));
    }
    return new ProducerRecord<>(settings.kafkaTopic(), null, bytes(key.toString()), value, headers);
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  @Override
  public Future<Void> close() {
    KafkaProducer<byte[], byte[]> current = producer;
    producer = null;
    return current == null
        ? Future.succeededFuture()
        : vertx.executeBlocking(
            () -> {
              current.close(java.time.Duration.ofSeconds(5));
              return null;
            },
            false);
  }
}
