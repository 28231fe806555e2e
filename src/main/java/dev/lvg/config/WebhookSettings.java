package dev.lvg.config;

/**
 * How webhooks are delivered: whether this gateway delivers them at all (every gateway of a
 * deployment may, sharing the work through the database, or only some), how often a gateway looks
 * for endpoints with events due, how long a delivery may take, the backoff between attempts
 * (doubling from {@code backoffMillis} up to {@code maxBackoffMillis}, with jitter), how many
 * attempts an event gets before it is dead-lettered, and whether endpoints on private, loopback or
 * link-local addresses are allowed.
 */
public record WebhookSettings(
    boolean deliver,
    int pollMillis,
    int timeoutMillis,
    int backoffMillis,
    int maxBackoffMillis,
    int maxAttempts,
    boolean allowPrivateTargets) {

  static WebhookSettings from(Settings s) {
    return new WebhookSettings(
        s.bool("LVG_WEBHOOK_DELIVER", true),
        s.integer("LVG_WEBHOOK_POLL_MILLIS", 200, 10, 60_000),
        s.integer("LVG_WEBHOOK_TIMEOUT_MILLIS", 10_000, 100, 120_000),
        s.integer("LVG_WEBHOOK_BACKOFF_MILLIS", 1_000, 10, 3_600_000),
        s.integer("LVG_WEBHOOK_MAX_BACKOFF_MILLIS", 600_000, 10, 86_400_000),
        s.integer("LVG_WEBHOOK_MAX_ATTEMPTS", 20, 1, 1_000),
        s.bool("LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS", false));
  }
}
