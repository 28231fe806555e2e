package dev.lvg.platform;

import dev.lvg.config.AdmissionSettings;
import dev.lvg.config.GatewayConfig;
import dev.lvg.config.TenantQuotas;
import dev.lvg.metrics.AdmissionMetrics;
import dev.lvg.overload.AdmissionReport;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.overload.LimiterSettings;
import dev.lvg.overload.TenantRateLimit;
import dev.lvg.overload.TimeShare;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The gateway's limits, built from its configuration: admission control for reads and for writes
 * (each null when admission is off), the tenant quotas (null when no tenant has one) and the report
 * of what admission is doing.
 */
public record Limits(
    ConcurrencyLimiter reads,
    ConcurrencyLimiter writes,
    TenantRateLimit quotas,
    AdmissionReport report) {
  /** The class of reads, whose requests share the database's time among tenants. */
  static final String READS = "reads";

  public static Limits of(Vertx vertx, GatewayConfig config, MeterRegistry registry) {
    ConcurrencyLimiter reads = admission(vertx, READS, config.admission(), registry);
    ConcurrencyLimiter writes = admission(vertx, "writes", config.admission(), registry);
    return new Limits(
        reads,
        writes,
        tenantQuotas(config.tenantQuotas()),
        new AdmissionReport(Stream.of(reads, writes).filter(Objects::nonNull).toList(), registry));
  }

  /** Admission control for one class of requests, or null when it is switched off. */
  private static ConcurrencyLimiter admission(
      Vertx vertx, String limiterClass, AdmissionSettings settings, MeterRegistry registry) {
    if (!settings.enabled()) {
      return null;
    }
    AdmissionMetrics metrics = AdmissionMetrics.of(registry, limiterClass);
    ConcurrencyLimiter limiter =
        new ConcurrencyLimiter(
            limiterClass,
            new LimiterSettings(
                settings.initialLimit(),
                settings.minLimit(),
                settings.maxLimit(),
                TimeUnit.MILLISECONDS.toNanos(settings.maxWaitMillis()),
                settings.tolerance(),
                TimeUnit.MILLISECONDS.toNanos(settings.acceptedLatencyMillis()),
                TimeUnit.MILLISECONDS.toNanos(settings.floorLatencyMillis())),
            limiterClass.equals(READS) && settings.readTimeMillisPerSecond() > 0
                ? new TimeShare(
                    settings.readTimeMillisPerSecond() / 1000.0,
                    TimeUnit.MILLISECONDS.toNanos(settings.readTimeBurstMillis()))
                : null,
            System::nanoTime,
            (delayNanos, task) -> {
              long timer =
                  vertx.setTimer(
                      Math.max(1, TimeUnit.NANOSECONDS.toMillis(delayNanos)), fired -> task.run());
              return () -> vertx.cancelTimer(timer);
            },
            metrics);
    metrics.watch(limiter);
    return limiter;
  }

  /** The tenant quotas, or null when no tenant has one. */
  private static TenantRateLimit tenantQuotas(TenantQuotas quotas) {
    if (!quotas.any()) {
      return null;
    }
    Map<String, TenantRateLimit.Rate> rates = new HashMap<>();
    quotas
        .overrides()
        .forEach(
            (tenant, quota) ->
                rates.put(tenant, new TenantRateLimit.Rate(quota.rate(), quota.burst())));
    return new TenantRateLimit(
        new TenantRateLimit.Rate(quotas.rate(), quotas.burst()), rates, System::nanoTime);
  }
}
