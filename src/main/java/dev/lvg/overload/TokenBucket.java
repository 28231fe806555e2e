package dev.lvg.overload;

/**
 * A token bucket: {@code burst} tokens at most, refilled at {@code ratePerSecond}. Time comes from
 * the caller (nanoseconds), so the logic is testable with a fake clock.
 */
final class TokenBucket {
  private final double tokensPerNano;
  private final double capacity;
  private double tokens;
  private long lastRefill;

  TokenBucket(double ratePerSecond, int burst, long now) {
    this.tokensPerNano = ratePerSecond / 1e9;
    this.capacity = burst;
    this.tokens = burst;
    this.lastRefill = now;
  }

  /** Takes one token if there is one. */
  synchronized boolean tryTake(long now) {
    long elapsed = now - lastRefill;
    if (elapsed > 0) {
      tokens = Math.min(capacity, tokens + elapsed * tokensPerNano);
      lastRefill = now;
    }
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }
}
