package dev.lvg.overload;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * Each requester's share of the database's time: a bucket of time that refills at {@code rate}
 * (seconds of time a second) up to {@code burst}, from which every request's time is taken when it
 * ends. A requester whose bucket is empty is refused until it has refilled, however few requests it
 * has in flight: admission by count alone lets one tenant's few heavy requests take what many light
 * ones of others need. Not thread-safe: its limiter serializes calls.
 */
final class TimeBudget {
  /** Requesters whose bucket is full are forgotten once this many are kept. */
  static final int MAX_KEPT = 10_000;

  private final double rate;
  private final long burstNanos;
  private final Map<String, long[]> buckets = new HashMap<>();

  /** {@code rate}: nanoseconds of time a requester earns each nanosecond. */
  TimeBudget(double rate, long burstNanos) {
    this.rate = rate;
    this.burstNanos = burstNanos;
  }

  /**
   * Nanoseconds until {@code requester} may run again (0: it may now), counting the {@code
   * inFlight} nanoseconds its requests still running have taken so far: a tenant that keeps many
   * heavy requests running is refused before they end.
   */
  long wait(String requester, long now, long inFlight) {
    long[] bucket = buckets.get(requester);
    long left = (bucket == null ? burstNanos : refill(bucket, now)) - inFlight;
    return left > 0 ? 0 : (long) Math.ceil((1 - left) / rate);
  }

  /** Takes {@code used} nanoseconds from {@code requester}'s bucket, which may go into debt. */
  void charge(String requester, long used, long now) {
    long[] bucket = buckets.get(requester);
    if (bucket == null) {
      if (buckets.size() >= MAX_KEPT) {
        forgetFull(now);
      }
      bucket = new long[] {burstNanos, now};
      buckets.put(requester, bucket);
    }
    bucket[0] = refill(bucket, now) - used;
  }

  /** The bucket's time at {@code now}, refilled since it was last touched, at most the burst. */
  private long refill(long[] bucket, long now) {
    long earned = (long) ((now - bucket[1]) * rate);
    bucket[0] = Math.min(burstNanos, bucket[0] + Math.max(0, earned));
    bucket[1] = now;
    return bucket[0];
  }

  private void forgetFull(long now) {
    Iterator<long[]> each = buckets.values().iterator();
    while (each.hasNext()) {
      if (refill(each.next(), now) >= burstNanos) {
        each.remove();
      }
    }
  }
}
