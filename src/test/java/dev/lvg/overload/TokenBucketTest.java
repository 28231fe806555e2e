package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TokenBucketTest {
  private static final long SECOND = 1_000_000_000L;

  @Test
  void aFullBucketAllowsABurstThenRefillsAtTheRate() {
    TokenBucket bucket = new TokenBucket(10, 3, 0);
    assertThat(bucket.tryTake(0)).isTrue();
    assertThat(bucket.tryTake(0)).isTrue();
    assertThat(bucket.tryTake(0)).isTrue();
    assertThat(bucket.tryTake(0)).isFalse();
    assertThat(bucket.tryTake(SECOND / 20)).isFalse();
    assertThat(bucket.tryTake(SECOND / 10)).isTrue();
    assertThat(bucket.tryTake(SECOND / 10)).isFalse();
  }

  @Test
  void refillNeverExceedsTheBurst() {
    TokenBucket bucket = new TokenBucket(1000, 2, 0);
    long later = 60 * SECOND;
    assertThat(bucket.tryTake(later)).isTrue();
    assertThat(bucket.tryTake(later)).isTrue();
    assertThat(bucket.tryTake(later)).isFalse();
  }

  @Test
  void aClockThatGoesBackwardsGrantsNothingExtra() {
    TokenBucket bucket = new TokenBucket(1, 1, 10 * SECOND);
    assertThat(bucket.tryTake(10 * SECOND)).isTrue();
    assertThat(bucket.tryTake(5 * SECOND)).isFalse();
    assertThat(bucket.tryTake(11 * SECOND)).isTrue();
  }
}
