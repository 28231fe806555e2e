package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
  private static final long MS = 1_000_000L;
  private static final long WINDOW = 100 * MS;

  private long now = 1_000_000_000L;
  private boolean started;

  /**
   * Ten samples of {@code latencyMs} spread over one window, with {@code inFlight} running; the
   * first window also gets the sample that opens it.
   */
  private void window(AdaptiveLimit limit, long latencyMs, int inFlight) {
    if (!started) {
      started = true;
      limit.onSample(now, latencyMs * MS, inFlight);
    }
    for (int i = 0; i < 10; i++) {
      now += WINDOW / 10;
      limit.onSample(now, latencyMs * MS, inFlight);
    }
  }

  @Test
  void growsWhileLatencyStaysNearItsBaselineAndTheLimitIsInUse() {
    AdaptiveLimit limit = new AdaptiveLimit(16, 4, 64, WINDOW, 2.0, 0);
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
    AdaptiveLimit limit = new AdaptiveLimit(16, 4, 64, WINDOW, 2.0, 0);
    for (int i = 0; i < 20; i++) {
      window(limit, 5, 3);
    }
    assertThat(limit.limit()).isEqualTo(16);
  }

  @Test
  void shrinksWhenLatencyExceedsToleranceTimesTheBaselineButNotBelowItsFloor() {
    AdaptiveLimit limit = new AdaptiveLimit(32, 4, 64, WINDOW, 2.0, 0);
    window(limit, 5, 32);
    int before = limit.limit();
    window(limit, 11, before);
    assertThat(limit.limit()).isEqualTo((int) (before * AdaptiveLimit.DECREASE));
    for (int i = 0; i < 30; i++) {
      window(limit, 50, limit.limit());
    }
    assertThat(limit.limit()).isEqualTo(4);
  }

  @Test
  void slowRequestsFarBelowTheLimitDoNotShrinkIt() {
    AdaptiveLimit limit = new AdaptiveLimit(32, 4, 64, WINDOW, 2.0, 0);
    window(limit, 5, 32);
    int before = limit.limit();
    for (int i = 0; i < 10; i++) {
      window(limit, 80, 3);
    }
    assertThat(limit.limit()).isEqualTo(before);
    window(limit, 80, before);
    assertThat(limit.limit()).isLessThan(before);
  }

  @Test
  void latencyWithinToleranceKeepsTheLimit() {
    AdaptiveLimit limit = new AdaptiveLimit(32, 4, 64, WINDOW, 2.0, 0);
    window(limit, 5, 1);
    window(limit, 9, 1);
    assertThat(limit.limit()).isEqualTo(32);
  }

  @Test
  void theBaselineForgetsOldMinimaSoALastingSlowdownIsAccepted() {
    AdaptiveLimit limit = new AdaptiveLimit(32, 4, 64, WINDOW, 2.0, 0);
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
    AdaptiveLimit limit = new AdaptiveLimit(16, 4, 64, WINDOW, 2.0, 0);
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
    AdaptiveLimit limit = new AdaptiveLimit(32, 4, 64, WINDOW, 2.0, 20 * MS);
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
