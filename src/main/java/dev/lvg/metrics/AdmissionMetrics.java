package dev.lvg.metrics;

import dev.lvg.overload.ConcurrencyLimiter;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * What admission control decides, per class of requests: admitted and refused requests by reason
 * and requester (the first {@link #MAX_REQUESTERS} requesters seen get a label of their own, the
 * rest share {@code other}), the current limit, the requests running and waiting, and the waits.
 */
public final class AdmissionMetrics implements ConcurrencyLimiter.Observer {
  static final int MAX_REQUESTERS = 20;
  static final String OTHER = "other";

  private final MeterRegistry registry;
  private final String limiterClass;
  private final ConcurrentHashMap<String, Counter> counters = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<String, Boolean> labelled = new ConcurrentHashMap<>();
  private final Timer waits;

  private AdmissionMetrics(MeterRegistry registry, String limiterClass) {
    this.registry = registry;
    this.limiterClass = limiterClass;
    this.waits =
        Timer.builder("lvg_admission_wait")
            .description("time admitted requests waited for a slot")
            .tag("class", limiterClass)
            .serviceLevelObjectives(
                Duration.ofNanos(1),
                Duration.ofMillis(1),
                Duration.ofMillis(2),
                Duration.ofMillis(5),
                Duration.ofMillis(10),
                Duration.ofMillis(25),
                Duration.ofMillis(50),
                Duration.ofMillis(100))
            .register(registry);
  }

  /** Meters for requests of {@code limiterClass}; gauges follow {@code limiter} once it exists. */
  public static AdmissionMetrics of(MeterRegistry registry, String limiterClass) {
    return new AdmissionMetrics(registry, limiterClass);
  }

  /** Registers the gauges of the limiter these meters observe. */
  public void watch(ConcurrencyLimiter limiter) {
    Gauge.builder("lvg_admission_limit", limiter, ConcurrencyLimiter::limit)
        .description("requests of this class allowed to run at once")
        .tag("class", limiterClass)
        .register(registry);
    Gauge.builder("lvg_admission_in_flight", limiter, ConcurrencyLimiter::running)
        .description("requests of this class running")
        .tag("class", limiterClass)
        .register(registry);
    Gauge.builder("lvg_admission_waiting", limiter, ConcurrencyLimiter::waiting)
        .description("requests of this class waiting for a slot")
        .tag("class", limiterClass)
        .register(registry);
  }

  @Override
  public void admitted(String requester, long waitedNanos, ConcurrencyLimiter.Grant grant) {
    counter(requester, "admitted", grant.name().toLowerCase(Locale.ROOT)).increment();
    waits.record(waitedNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void refused(String requester, ConcurrencyLimiter.Reason reason) {
    counter(requester, "shed", reason.name().toLowerCase(Locale.ROOT)).increment();
  }

  private Counter counter(String requester, String outcome, String reason) {
    String label = label(requester);
    return counters.computeIfAbsent(
        label + '|' + outcome + '|' + reason,
        key ->
            Counter.builder("lvg_admission")
                .description("admission decisions by class, outcome, reason and requester")
                .tag("class", limiterClass)
                .tag("outcome", outcome)
                .tag("reason", reason)
                .tag("requester", label)
                .register(registry));
  }

  private String label(String requester) {
    if (labelled.containsKey(requester)) {
      return requester;
    }
    if (labelled.size() < MAX_REQUESTERS) {
      labelled.putIfAbsent(requester, true);
      return requester;
    }
    return OTHER;
  }
}
