package dev.lvg.overload;

import java.util.concurrent.ThreadLocalRandom;

/**
 * The {@code Retry-After} of a limiter's refusals: 1 second when few requests are refused, more as
 * refusals outnumber admissions (up to 5), with jitter so refused clients do not come back
 * together. Recent counts halve as they grow, so the advice follows the current load. Its owner
 * serializes calls.
 */
final class RetryAdvice {
  private long refusals;
  private long admissions;

  void admitted() {
    admissions++;
  }

  void refused() {
    refusals++;
  }

  /** Seconds a refused client should wait. */
  int seconds() {
    double pressure = refusals / (double) Math.max(1, admissions);
    if (admissions + refusals > 10_000) {
      admissions /= 2;
      refusals /= 2;
    }
    double base = 1 + Math.min(4, pressure);
    return (int) Math.max(1, Math.round(base * (0.5 + ThreadLocalRandom.current().nextDouble())));
  }
}
