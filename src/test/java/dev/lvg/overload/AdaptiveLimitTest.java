package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
  private static final long MS = 1_000_000L;
  private static final long WINDOW = 100 * MS;

  private long now = 1_000_000_000L;
  private boolean started;

  /**
   * {@link AdaptiveLimit#BASELINE_MIN_SAMPLES} samples of {@code latencyMs} spread over one window,
   * with {@code inFlight} running; the first window also gets the sample that opens it.
   */
  private void window(AdaptiveLimit limit, long latencyMs, int inFlight) {
    samples(limit, latencyMs * MS, inFlight, AdaptiveLimit.BASELINE_MIN_SAMPLES);
  }

  private void samples(AdaptiveLimit limit, long latencyNanos, int inFlight, int count) {
    if (!started) {
      started = true;
      limit.onSample(now, latencyNanos, inFlight);
    }
    for (int i = 0; i < count; i++) {
      now += WINDOW / count;
      limit.onSample(now, latencyNanos, inFlight);
    }
  }

  @Test
  void growsWhileLatencyStaysNearItsBaselineAndTheLimitIsInUse() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(16, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 16);
    int first = limit.limit();
    assertThat(first).isGreaterThan(16);
    for (int i = 0; i < 50; i++) {
      window(limit, 5, limit.limit());
    }
    assertThat(limit.limit()).isEqualTo(64);
  }

  @Test
  void doesNotGrowWhenTheLimitIsNotInUse() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(16, 4, 64, 0, 2.0, 0, 0), WINDOW);
    for (int i = 0; i < 20; i++) {
      window(limit, 5, 3);
    }
    assertThat(limit.limit()).isEqualTo(16);
  }

  @Test
  void shrinksWhenLatencyExceedsToleranceTimesTheBaselineButNotBelowItsFloor() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 32);
    int before = limit.limit();
    window(limit, 11, before);
    assertThat(limit.limit()).isEqualTo((int) (before * AdaptiveLimit.DECREASE));
    int lowest = limit.limit();
    for (int i = 0; i < 30; i++) {
      window(limit, 50, limit.limit());
      lowest = Math.min(lowest, limit.limit());
    }
    assertThat(lowest).isEqualTo(4);
  }

  @Test
  void whereLatencyStaysHighAtTheFloorTheFloorsLatencyBecomesTheBaseline() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    while (limit.limit() > 4) {
      window(limit, 50, limit.limit());
    }
    // Shrinking did not lower the latency: it is the environment's, and the limit may grow again.
    window(limit, 50, 4);
    assertThat(limit.baselineNanos(now)).isEqualTo(5 * MS);
    for (int i = 0; i < 10 * AdaptiveLimit.BASELINE_BUCKETS + 10; i++) {
      window(limit, 50, limit.limit());
    }
    assertThat(limit.baselineNanos(now)).isEqualTo(50 * MS);
    assertThat(limit.limit()).isEqualTo(64);
  }

  @Test
  void slowRequestsFarBelowTheLimitDoNotShrinkIt() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    window(limit, 5, 32);
    int before = limit.limit();
    for (int i = 0; i < 10; i++) {
      window(limit, 80, 3);
    }
    assertThat(limit.limit()).isEqualTo(before);
    window(limit, 80, before);
    assertThat(limit.limit()).isLessThan(before);
  }

  /**
   * A server whose latency is its queue: {@code microsPerRequest} for each request in flight (the
   * limit is always full), over {@code seconds}; answers the lowest and highest limit of the last
   * half.
   */
  private int[] overloaded(AdaptiveLimit limit, long microsPerRequest, int seconds) {
    int low = Integer.MAX_VALUE;
    int high = 0;
    int windows = seconds * 10;
    for (int i = 0; i < windows; i++) {
      int inFlight = limit.limit();
      samples(limit, inFlight * microsPerRequest * 1000, inFlight, 20);
      if (i >= windows / 2) {
        low = Math.min(low, limit.limit());
        high = Math.max(high, limit.limit());
      }
    }
    return new int[] {low, high};
  }

  @Test
  void underLastingOverloadTheBaselineDoesNotCreepUpWithTheLatencyTheLimitAllows() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(16, 4, 1024, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    // 0.2 ms per request in flight: tolerance x baseline = 10 ms is reached at 50.
    int[] range = overloaded(limit, 200, 60);
    assertThat(limit.baselineNanos(now)).isEqualTo(5 * MS);
    assertThat(range[0]).isGreaterThanOrEqualTo(40);
    assertThat(range[1]).isLessThanOrEqualTo(60);
  }

  @Test
  void aSlowdownTheLimitCannotCureDoesNotTakeItBelowWhatRecentThroughputNeeds() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(64, 4, 256, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    // 5,000 requests a second at 8 ms, within twice the baseline: the limit grows to its ceiling.
    for (int i = 0; i < 50; i++) {
      samples(limit, 8 * MS, limit.limit(), 500);
    }
    assertThat(limit.limit()).isEqualTo(256);
    // Then every request takes 40 ms whatever the limit, and throughput falls with it.
    int lowest = Integer.MAX_VALUE;
    for (int i = 0; i < 250; i++) {
      samples(limit, 40 * MS, limit.limit(), 40);
      lowest = Math.min(lowest, limit.limit());
    }
    // 5,000/s x the target latency (2 x the 5 ms baseline) = 50: the last 30 s saw 5,000 a second.
    assertThat(lowest).isEqualTo(50);
    assertThat(limit.floor(now, 10 * MS)).isEqualTo(50);
    for (int i = 0; i < 100; i++) {
      samples(limit, 40 * MS, limit.limit(), 40);
    }
    assertThat(limit.floor(now, 10 * MS))
        .as("once the fast seconds are 30 s old, the floor follows the throughput of now")
        .isLessThan(50);
  }

  @Test
  void latencyThatDoesNotFallWithTheLimitDoesNotTakeItBelowWhatTheAcceptedLatencyNeeds() {
    AdaptiveLimit limit =
        new AdaptiveLimit(new LimiterSettings(64, 4, 512, 0, 2.0, 20 * MS, 0), WINDOW);
    window(limit, 3, 4);
    // 72 in flight at 18 ms, within the accepted 20 ms: 4,000 requests a second.
    for (int i = 0; i < 30; i++) {
      samples(limit, 18 * MS, Math.min(72, limit.limit()), 400);
    }
    assertThat(limit.limit()).isGreaterThan(90);
    // Then a flood: the limit is full, and every request takes 30 ms whatever the limit (the cores
    // are busy refusing), so throughput is the limit over 30 ms and a smaller limit admits less.
    // 4,000/s x 20 ms = 80, where twice the 3 ms baseline would have let it fall to 24.
    assertThat(lowestUnderAFlood(limit)).isBetween(80, 81);
  }

  @Test
  void theFloorLatencyKeepsWhatTheShownThroughputNeedsAboveATighterAcceptedLatency() {
    assertThat(underAFlood(0)[1]).as("the floor at the accepted 15 ms").isBetween(60, 61);
    int[] limits = underAFlood(20 * MS);
    assertThat(limits[0]).isGreaterThan(70);
    assertThat(limits[1]).as("4,000/s x 20 ms = 80, above the limit").isEqualTo(limits[0]);
  }

  /** The limit before a flood that does not let latency fall with it, and its lowest during it. */
  private int[] underAFlood(long floorNanos) {
    now = 1_000_000_000L;
    started = false;
    AdaptiveLimit limit =
        new AdaptiveLimit(new LimiterSettings(16, 4, 512, 0, 2.0, 15 * MS, floorNanos), WINDOW);
    window(limit, 3, 4);
    // 56 in flight at 14 ms, within the accepted 15 ms: 4,000 requests a second.
    for (int i = 0; i < 30; i++) {
      samples(limit, 14 * MS, Math.min(56, limit.limit()), 400);
    }
    int before = limit.limit();
    return new int[] {before, lowestUnderAFlood(limit)};
  }

  /**
   * Five seconds of a full limit whose every request takes 30 ms whatever the limit, so throughput
   * is the limit over 30 ms; the lowest limit meanwhile.
   */
  private int lowestUnderAFlood(AdaptiveLimit limit) {
    int lowest = Integer.MAX_VALUE;
    for (int i = 0; i < 50; i++) {
      int inFlight = limit.limit();
      samples(limit, 30 * MS, inFlight, (int) (inFlight * WINDOW / (30 * MS)));
      lowest = Math.min(lowest, limit.limit());
    }
    return lowest;
  }

  @Test
  void aWindowBelowTheLimitWithManyInFlightIsNotTheBaseline() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(128, 4, 512, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 4);
    // Half the limit in flight, queueing behind a slow batch: not in use, and not light either.
    window(limit, 60, 64);
    assertThat(limit.baselineNanos(now)).isEqualTo(5 * MS);
    window(limit, 60, 128);
    assertThat(limit.limit()).isLessThan(128);
  }

  @Test
  void aFewSlowRequestsInAQuietWindowDoNotBecomeTheBaseline() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    for (int i = 0; i < 10 * AdaptiveLimit.BASELINE_BUCKETS; i++) {
      // Five declarations of 300 ms each, one at a time.
      samples(limit, 300 * MS, 1, AdaptiveLimit.BASELINE_MIN_SAMPLES / 4);
    }
    assertThat(limit.baselineNanos(now)).isEqualTo(5 * MS);
    int before = limit.limit();
    window(limit, 12, before);
    assertThat(limit.limit()).isLessThan(before);
  }

  @Test
  void underLastingOverloadTheAcceptedLatencyHoldsTheLimit() {
    AdaptiveLimit limit =
        new AdaptiveLimit(new LimiterSettings(16, 4, 1024, 0, 3.0, 20 * MS, 0), WINDOW);
    window(limit, 2, 1);
    // 0.25 ms per request in flight: the accepted 20 ms is reached at 80.
    int[] range = overloaded(limit, 250, 60);
    assertThat(range[0]).isGreaterThanOrEqualTo(64);
    assertThat(range[1]).isLessThanOrEqualTo(90);
  }

  @Test
  void latencyWithinToleranceKeepsTheLimit() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 5, 1);
    window(limit, 9, 1);
    assertThat(limit.limit()).isEqualTo(32);
  }

  @Test
  void theBaselineForgetsOldMinimaSoALastingSlowdownIsAccepted() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 0, 0), WINDOW);
    window(limit, 2, 1);
    assertThat(limit.baselineNanos(now)).isEqualTo(2 * MS);
    for (int i = 0; i < 10 * AdaptiveLimit.BASELINE_BUCKETS + 10; i++) {
      window(limit, 20, 1);
    }
    assertThat(limit.baselineNanos(now)).isEqualTo(20 * MS);
    int settled = limit.limit();
    window(limit, 20, settled);
    assertThat(limit.limit()).isGreaterThanOrEqualTo(settled);
  }

  @Test
  void aWindowNeedsTimeAndSamples() {
    AdaptiveLimit limit = new AdaptiveLimit(new LimiterSettings(16, 4, 64, 0, 2.0, 0, 0), WINDOW);
    limit.onSample(now, 5 * MS, 16);
    for (int i = 0; i < 3; i++) {
      now += WINDOW;
      limit.onSample(now, 5 * MS, 16);
    }
    assertThat(limit.recentMeanNanos()).isZero();
    now += WINDOW;
    limit.onSample(now, 5 * MS, 16);
    assertThat(limit.recentMeanNanos()).isEqualTo(5 * MS);
  }

  @Test
  void latencyUnderTheAcceptedLatencyNeverShrinksTheLimit() {
    AdaptiveLimit limit =
        new AdaptiveLimit(new LimiterSettings(32, 4, 64, 0, 2.0, 20 * MS, 0), WINDOW);
    window(limit, 2, 32);
    int before = limit.limit();
    for (int i = 0; i < 10; i++) {
      window(limit, 15, limit.limit());
    }
    assertThat(limit.limit()).isGreaterThanOrEqualTo(before);
    window(limit, 30, limit.limit());
    assertThat(limit.limit()).isLessThan(64);
  }
}
