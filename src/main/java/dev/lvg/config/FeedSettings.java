package dev.lvg.config;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The change feed: how long events are kept and how often expiry looks for older ones, how often
 * the live tail looks for new ones, when it sends a heartbeat, how long a consumer may leave its
 * connection full before it is cut off, how many live tails this gateway holds at once: in all, for
 * one tenant, and for one credential; webhooks; and the brokers it is published into.
 */
public record FeedSettings(
    Duration retention,
    int expiryEveryMillis,
    int pollMillis,
    int heartbeatMillis,
    int slowConsumerMillis,
    int maxStreams,
    int maxStreamsPerTenant,
    int maxStreamsPerCredential,
    String source,
    WebhookSettings webhooks,
    SinkSettings sinks) {
  private static final Pattern SHORT = Pattern.compile("(\\d{1,9})([smhd])");

  static FeedSettings from(Settings s) {
    return new FeedSettings(
        duration("LVG_EVENTS_RETENTION", s.string("LVG_EVENTS_RETENTION", "7d")),
        s.integer("LVG_EVENTS_EXPIRY_MILLIS", 60_000, 100, 86_400_000),
        s.integer("LVG_EVENTS_POLL_MILLIS", 20, 1, 60_000),
        s.integer("LVG_EVENTS_HEARTBEAT_MILLIS", 15_000, 100, 600_000),
        s.integer("LVG_EVENTS_SLOW_CONSUMER_MILLIS", 10_000, 100, 600_000),
        s.integer("LVG_EVENTS_MAX_STREAMS", 10_000, 0, 1_000_000),
        s.integer("LVG_EVENTS_MAX_STREAMS_PER_TENANT", 1_000, 0, 1_000_000),
        s.integer("LVG_EVENTS_MAX_STREAMS_PER_KEY", 100, 0, 1_000_000),
        s.string("LVG_EVENTS_SOURCE", "/lance-version-gateway"),
        WebhookSettings.from(s),
        SinkSettings.from(s));
  }

  /** {@code 7d}, {@code 12h}, {@code 30m}, {@code 45s}, or an ISO-8601 duration ({@code PT90M}). */
  static Duration duration(String key, String value) {
    Matcher form = SHORT.matcher(value);
    Duration parsed;
    if (form.matches()) {
      long n = Long.parseLong(form.group(1));
      parsed =
          switch (form.group(2)) {
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
          };
    } else {
      try {
        parsed = Duration.parse(value);
      } catch (DateTimeParseException e) {
        throw new ConfigException(
            key + " must be a duration such as 7d, 12h, 30m, 45s or PT90M, got '" + value + "'");
      }
    }
    if (parsed.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new ConfigException(key + " must be at least one second, got '" + value + "'");
    }
    return parsed;
  }
}
