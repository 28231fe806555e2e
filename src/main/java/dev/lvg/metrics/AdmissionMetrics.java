package dev.lvg.metrics;

import dev.lvg.overload.AdmissionObserver;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.overload.Grant;
import dev.lvg.overload.RefusalReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * What admission control decides, per class of requests: admitted and refused requests by reason
 * and requester (the first {@link #MAX_REQUESTERS} requesters seen get a label of their own, the
 * rest share {@code other}), the current limit, the requests running and waiting, and the waits.
 */
public final class AdmissionMetrics implements AdmissionObserver {
  static final int MAX_REQUESTERS = 20;
  static final String OTHER = "other";

  private final MeterRegistry registry;
  private final String limiterClass;
  private final ConcurrentHashMap<String, Labelled> labelled = new ConcurrentHashMap<>();
  private final AtomicInteger labels = new AtomicInteger();
  private final Labelled other = new Labelled(OTHER);
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
  public void admitted(String requester, long waitedNanos, Grant grant) {
    meters(requester).admitted(grant).increment();
    waits.record(waitedNanos, TimeUnit.NANOSECONDS);
  }

  @Override
  public void refused(String requester, RefusalReason reason) {
    meters(requester).shed(reason).increment();
  }

  /** The meters of {@code requester}'s label, taking a free label for a requester not yet seen. */
  private Labelled meters(String requester) {
    Labelled meters = labelled.get(requester);
    if (meters != null) {
      return meters;
    }
    if (labels.get() >= MAX_REQUESTERS) {
      return other;
    }
    return labelled.computeIfAbsent(
        requester, name -> labels.incrementAndGet() <= MAX_REQUESTERS ? new Labelled(name) : other);
  }

  /**
   * One label's counters, by grant and by reason, each registered when first used (so /metrics
   * shows only what happened) and then found by the enum's ordinal, without building a key.
   */
  private final class Labelled {
    private final String label;
    private final AtomicReferenceArray<Counter> admitted =
        new AtomicReferenceArray<>(Grant.values().length);
    private final AtomicReferenceArray<Counter> shed =
        new AtomicReferenceArray<>(RefusalReason.values().length);

    Labelled(String label) {
      this.label = label;
    }

    Counter admitted(Grant grant) {
      return counter(admitted, grant, "admitted");
    }

    Counter shed(RefusalReason reason) {
      return counter(shed, reason, "shed");
    }

    private Counter counter(AtomicReferenceArray<Counter> slots, Enum<?> reason, String outcome) {
      Counter counter = slots.get(reason.ordinal());
      if (counter == null) {
        // Registering again returns the meter already registered, so a race here is harmless.
        counter =
            Counter.builder("lvg_admission")
                .description("admission decisions by class, outcome, reason and requester")
                .tag("class", limiterClass)
                .tag("outcome", outcome)
                .tag("reason", reason.name().toLowerCase(Locale.ROOT))
                .tag("requester", label)
                .register(registry);
        slots.set(reason.ordinal(), counter);
      }
      return counter;
    }
  }
}
