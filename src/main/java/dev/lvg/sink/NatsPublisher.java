package dev.lvg.sink;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.config.SinkSettings;
import dev.lvg.http.Json;
import dev.lvg.tenancy.Tenant;
import io.nats.client.Connection;
import io.nats.client.ErrorListener;
import io.nats.client.JetStream;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.PublishOptions;
import io.nats.client.api.PublishAck;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import io.nats.client.api.StreamInfo;
import io.nats.client.impl.Headers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NATS JetStream as a sink, through the official client: each event on the subject {@code
 * <prefix>.<tenant>.<names…>} (each part escaped, see {@link #token}), its body the structured
 * CloudEvent, and {@code Nats-Msg-Id} the tenant's number and its event id ({@code <n>-<id>}: an
 * event id is unique within its tenant), so that the stream's duplicate window drops an event
 * published twice. The stream is created at the first connection when missing (file storage, a
 * two-minute duplicate window, the subjects {@code <prefix>.>}), and must take those subjects when
 * it exists. The client's calls block, so they run on worker threads.
 */
final class NatsPublisher implements Publisher {
  private static final Logger LOG = LoggerFactory.getLogger(NatsPublisher.class);
  private static final int STREAM_NOT_FOUND = 10059;
  private static final long ACK_TIMEOUT_SECONDS = 10;

  private final Vertx vertx;
  private final SinkSettings settings;
  private volatile Connection connection;
  private volatile JetStream jetStream;

  NatsPublisher(Vertx vertx, SinkSettings settings) {
    this.vertx = vertx;
    this.settings = settings;
  }

  @Override
  public Future<Void> ready() {
    Connection current = connection;
    if (current != null) {
      return current.getStatus() == Connection.Status.CONNECTED
          ? Future.succeededFuture()
          : Future.failedFuture("NATS is not connected (" + current.getStatus() + ")");
    }
    return vertx.executeBlocking(this::connect, false);
  }

  private Void connect() throws Exception {
    Options.Builder options =
        new Options.Builder()
            .server(settings.natsUrl())
            .connectionName("lance-version-gateway")
            .connectionTimeout(Duration.ofSeconds(5))
            .maxReconnects(-1)
            .reconnectWait(Duration.ofSeconds(1))
            // The client's own log would print every failed reconnect; the sink logs what matters.
            .errorListener(
                new ErrorListener() {
                  @Override
                  public void exceptionOccurred(Connection connection, Exception exception) {
                    LOG.debug("NATS client: {}", exception.toString());
                  }

                  @Override
                  public void errorOccurred(Connection connection, String error) {
                    LOG.debug("NATS server: {}", error);
                  }
                });
    if (settings.natsToken() != null) {
      options.token(settings.natsToken().toCharArray());
    }
    if (settings.natsCredentials() != null) {
      options.authHandler(Nats.credentials(settings.natsCredentials()));
    }
    Connection made = Nats.connect(options.build());
    try {
      stream(made.jetStreamManagement());
    } catch (Exception e) {
      made.close();
      throw e;
    }
    jetStream = made.jetStream();
    connection = made;
    LOG.info("publishing the change feed into NATS stream {}", settings.natsStream());
    return null;
  }

  /** Checks the stream, or creates it. */
  private void stream(JetStreamManagement management) throws Exception {
    String subjects = settings.natsSubjectPrefix() + ".>";
    try {
      StreamInfo info = management.getStreamInfo(settings.natsStream());
      if (!info.getConfiguration().getSubjects().contains(subjects)) {
        throw new IllegalStateException(
            "NATS stream "
                + settings.natsStream()
                + " does not take the subjects "
                + subjects
                + " (it takes "
                + info.getConfiguration().getSubjects()
                + ")");
      }
    } catch (JetStreamApiException missing) {
      if (missing.getApiErrorCode() != STREAM_NOT_FOUND) {
        throw missing;
      }
      management.addStream(
          StreamConfiguration.builder()
              .name(settings.natsStream())
              .subjects(subjects)
              .storageType(StorageType.File)
              .duplicateWindow(Duration.ofMinutes(2))
              .build());
      LOG.info("created NATS stream {} for {}", settings.natsStream(), subjects);
    }
  }

  @Override
  public Future<Publisher.Published> publish(Tenant tenant, List<ObjectNode> events) {
    return vertx.executeBlocking(() -> publishAll(tenant, events), false);
  }

  private Publisher.Published publishAll(Tenant tenant, List<ObjectNode> events) {
    Headers headers = new Headers().add("Content-Type", "application/cloudevents+json");
    List<CompletableFuture<PublishAck>> acks = new ArrayList<>(events.size());
    Throwable refused = null;
    for (ObjectNode event : events) {
      try {
        acks.add(
            jetStream.publishAsync(
                subject(tenant, event),
                headers,
                Json.MAPPER.writeValueAsString(event).getBytes(StandardCharsets.UTF_8),
                PublishOptions.builder()
                    .messageId(messageId(tenant, event))
                    .expectedStream(settings.natsStream())
                    .build()));
      } catch (Exception e) {
        refused = e;
        break;
      }
    }
    int acknowledged = 0;
    int duplicates = 0;
    for (CompletableFuture<PublishAck> ack : acks) {
      try {
        PublishAck answer = ack.get(ACK_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        acknowledged++;
        if (answer.isDuplicate()) {
          duplicates++;
        }
      } catch (Exception e) {
        return new Publisher.Published(acknowledged, duplicates, e);
      }
    }
    return new Publisher.Published(acknowledged, duplicates, refused);
  }

  /** The event's id in the stream's duplicate window, unique over every tenant. */
  static String messageId(Tenant tenant, ObjectNode event) {
    return tenant.id() + "-" + event.get("id").asText();
  }

  /** {@code <prefix>.<tenant>.<names…>} for an event, each name a token of its own. */
  String subject(Tenant tenant, ObjectNode event) {
    StringBuilder subject =
        new StringBuilder(settings.natsSubjectPrefix()).append('.').append(token(tenant.name()));
    for (JsonNode name : event.path("data").path("id")) {
      subject.append('.').append(token(name.asText()));
    }
    return subject.toString();
  }

  /**
   * A name as one subject token: the characters NATS gives a meaning to or refuses in a token
   * ({@code .}, {@code *}, {@code >}, white space and control characters) and {@code %} itself as
   * {@code %} and two hex digits of each UTF-8 byte; everything else as it is.
   */
  static String token(String name) {
    StringBuilder token = new StringBuilder(name.length());
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '.' || c == '*' || c == '>' || c == '%' || c <= ' ' || c == 0x7f) {
        token.append('%').append(String.format("%02X", (int) c));
      } else {
        token.append(c);
      }
    }
    return token.toString();
  }

  @Override
  public Future<Void> close() {
    Connection current = connection;
    connection = null;
    return current == null
        ? Future.succeededFuture()
        : vertx.executeBlocking(
            () -> {
              current.close();
              return null;
            },
            false);
  }
}
