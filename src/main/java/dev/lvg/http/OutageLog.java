package dev.lvg.http;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Logs an outage of a dependency in a bounded number of lines, however many requests it fails: one
 * when the first request gets 503, one a minute with the count while it lasts, and one when no
 * request has failed that way for two seconds. Shared by every event loop; only failing requests
 * and a once-a-second tick touch it.
 */
public final class OutageLog {
  private static final Logger LOG = LoggerFactory.getLogger(OutageLog.class);
  static final long QUIET_MILLIS = 2000;
  static final long SUMMARY_MILLIS = 60_000;

  /** How often {@link #tick} should run to end an outage on time. */
  public static final long TICK_MILLIS = 1000;

  /**
   * An outage log with the gauge {@code lvg_dependency_outage} in {@code registry}; its owner calls
   * {@link #tick} every {@link #TICK_MILLIS}.
   */
  public static OutageLog metered(MeterRegistry registry) {
    OutageLog outages = new OutageLog();
    Gauge.builder("lvg_dependency_outage", () -> outages.inOutage() ? 1 : 0)
        .description("1 while requests are answered 503 because PostgreSQL or storage failed")
        .register(registry);
    return outages;
  }

  private long started = -1;
  private long lastFailure;
  private long lastSummary;
  private long failed;
  private long failedSinceSummary;

  /** A request got 503 because a dependency failed; {@code cause} says how. */
  public synchronized void failed(String cause, long now) {
    if (started < 0) {
      started = now;
      lastSummary = now;
      failed = 0;
      failedSinceSummary = 0;
      LOG.warn("a dependency is unavailable, answering 503 code 17 until it returns: {}", cause);
    }
    failed++;
    failedSinceSummary++;
    lastFailure = now;
    if (now - lastSummary >= SUMMARY_MILLIS) {
      LOG.warn(
          "still unavailable after {} s: {} requests answered 503 in the last {} s; latest: {}",
          (now - started) / 1000,
          failedSinceSummary,
          (now - lastSummary) / 1000,
          cause);
      lastSummary = now;
      failedSinceSummary = 0;
    }
  }

  /** Ends an outage no request has met for a while; called about once a second. */
  public synchronized void tick(long now) {
    if (started >= 0 && now - lastFailure >= QUIET_MILLIS) {
      LOG.info(
          "dependencies answer again: the outage lasted {} ms and {} requests were answered 503",
          lastFailure - started,
          failed);
      started = -1;
    }
  }

  /** True while an outage is being counted. */
  public synchronized boolean inOutage() {
    return started >= 0;
  }
}
