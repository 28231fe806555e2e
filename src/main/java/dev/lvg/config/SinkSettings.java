package dev.lvg.config;

import java.util.Arrays;
import java.util.List;

/**
 * Where the change feed is published besides the gateway's own API, off by default. Kafka ({@code
 * LVG_FEED_KAFKA_BOOTSTRAP_SERVERS}): each event a record of {@code kafkaTopic} keyed by tenant and
 * object, in the CloudEvents Kafka binding's binary mode (or structured), with client properties
 * from a file for TLS or SASL. NATS JetStream ({@code LVG_FEED_NATS_URL}): each event on the
 * subject {@code <prefix>.<tenant>.<names…>} of the stream {@code stream} (created when missing),
 * authenticated by a credentials file or a token; for every tenant, for those {@code tenants}
 * names, or ({@code selectedTenants}, {@code LVG_FEED_SINK_TENANTS=@admin}) for those the admin API
 * selects for each sink. A sink's run looks for new events every {@code pollMillis}.
 */
public record SinkSettings(
    String kafkaBootstrapServers,
    String kafkaTopic,
    String kafkaPropertiesFile,
    boolean kafkaStructured,
    String natsUrl,
    String natsSubjectPrefix,
    String natsStream,
    String natsCredentials,
    String natsToken,
    List<String> tenants,
    boolean selectedTenants,
    int pollMillis) {
  /** The value of {@code LVG_FEED_SINK_TENANTS} that leaves the choice to the admin API. */
  public static final String SELECTED_BY_ADMIN = "@admin";

  /** Whether events are published into Kafka. */
  public boolean kafka() {
    return kafkaBootstrapServers != null;
  }

  /** Whether events are published into NATS JetStream. */
  public boolean nats() {
    return natsUrl != null;
  }

  static SinkSettings from(Settings s) {
    String tenants = s.string("LVG_FEED_SINK_TENANTS", "").trim();
    String prefix = s.string("LVG_FEED_NATS_SUBJECT_PREFIX", "lance");
    if (!prefix.matches("[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*")) {
      throw new ConfigException(
          "LVG_FEED_NATS_SUBJECT_PREFIX is tokens of letters, digits, '_' and '-' joined by '.',"
              + " got '"
              + prefix
              + "'");
    }
    String mode = s.string("LVG_FEED_KAFKA_MODE", "binary");
    if (!mode.equals("binary") && !mode.equals("structured")) {
      throw new ConfigException("LVG_FEED_KAFKA_MODE is binary or structured, got '" + mode + "'");
    }
    return new SinkSettings(
        empty(s.string("LVG_FEED_KAFKA_BOOTSTRAP_SERVERS", "")),
        s.string("LVG_FEED_KAFKA_TOPIC", "lance-feed"),
        empty(s.string("LVG_FEED_KAFKA_PROPERTIES", "")),
        mode.equals("structured"),
        empty(s.string("LVG_FEED_NATS_URL", "")),
        prefix,
        s.string("LVG_FEED_NATS_STREAM", "LANCE_FEED"),
        empty(s.string("LVG_FEED_NATS_CREDENTIALS", "")),
        empty(s.string("LVG_FEED_NATS_TOKEN", "")),
        tenants.isEmpty() || tenants.equals(SELECTED_BY_ADMIN)
            ? null
            : Arrays.stream(tenants.split(","))
                .map(String::trim)
                .filter(t -> !t.isEmpty())
                .toList(),
        tenants.equals(SELECTED_BY_ADMIN),
        s.integer("LVG_FEED_SINK_POLL_MS", 50, 10, 60_000));
  }

  private static String empty(String value) {
    return value.isEmpty() ? null : value;
  }
}
