package dev.lvg.overload;

/**
 * A concurrency limit that follows measured latency (additive increase, multiplicative decrease).
 * Latency samples are gathered in windows; at the end of each window its mean latency is compared
 * with the baseline, the lowest window mean of the last {@link #BASELINE_BUCKETS} seconds:
 *
 * <ul>
 *   <li>with the limit not in use during the window (in-flight stayed below {@link #IN_USE} of it),
 *       it stays: latency far from the limit is not caused by it;
 *   <li>above {@code tolerance} times the baseline and above {@code acceptedNanos}, requests are
 *       queueing somewhere (the database, the disk, the event loops): the limit shrinks by {@link
 *       #DECREASE}. The accepted latency keeps a group-committing server, whose latency rises with
 *       its batches long before it is overloaded, from shedding at moderate load;
 *   <li>otherwise the limit grows by about its square root.
 * </ul>
 *
 * The baseline forgets old minima after a while, so a lasting change in the environment (a slower
 * disk, a bigger database) moves it. Time comes from the caller, so the logic runs with a fake
 * clock in tests. Not thread-safe: its owner serializes calls.
 */
final class AdaptiveLimit {
  static final double DECREASE = 0.9;
  static final double IN_USE = 0.8;
  static final int BASELINE_BUCKETS = 10;
  private static final long BUCKET_NANOS = 1_000_000_000L;
  private static final int MIN_SAMPLES = 5;

  private final int min;
  private final int max;
  private final long windowNanos;
  private final double tolerance;
  private final long acceptedNanos;

  private double limit;
  private long windowStart = Long.MIN_VALUE;
  private int samples;
  private long latencySum;
  private int peakInFlight;
  private long recentMeanNanos;
  private double recentRatePerSecond;

  private final long[] bucketMinima = new long[BASELINE_BUCKETS];
  private final long[] bucketIds = new long[BASELINE_BUCKETS];

  AdaptiveLimit(
      int initial, int min, int max, long windowNanos, double tolerance, long acceptedNanos) {
    if (min < 1 || max < min || initial < min || initial > max) {
      throw new IllegalArgumentException("need 1 <= min <= initial <= max");
    }
    this.limit = initial;
    this.min = min;
    this.max = max;
    this.windowNanos = windowNanos;
    this.tolerance = tolerance;
    this.acceptedNanos = acceptedNanos;
    java.util.Arrays.fill(bucketIds, -1);
  }

  int limit() {
    return (int) limit;
  }

  /** The mean latency of the last complete window, or 0 before the first. */
  long recentMeanNanos() {
    return recentMeanNanos;
  }

  /** Requests finished per second in the last complete window, or 0 before the first. */
  double recentRatePerSecond() {
    return recentRatePerSecond;
  }

  /** The lowest window mean of the last seconds, or 0 before the first window. */
  long baselineNanos(long now) {
    long current = now / BUCKET_NANOS;
    long baseline = 0;
    for (int i = 0; i < BASELINE_BUCKETS; i++) {
      if (bucketIds[i] >= 0 && current - bucketIds[i] < BASELINE_BUCKETS) {
        baseline = baseline == 0 ? bucketMinima[i] : Math.min(baseline, bucketMinima[i]);
      }
    }
    return baseline;
  }

  /** One admitted request finished after {@code latencyNanos}; {@code inFlight} were running. */
  void onSample(long now, long latencyNanos, int inFlight) {
    if (windowStart == Long.MIN_VALUE) {
      windowStart = now;
    }
    samples++;
    latencySum += latencyNanos;
    peakInFlight = Math.max(peakInFlight, inFlight);
    if (now - windowStart < windowNanos || samples < MIN_SAMPLES) {
      return;
    }
    long mean = latencySum / samples;
    recentMeanNanos = mean;
    recentRatePerSecond = samples * 1e9 / Math.max(1, now - windowStart);
    long baseline = baselineNanos(now);
    if (baseline == 0 || mean < baseline) {
      baseline = mean;
    }
    remember(now, mean);
    if (peakInFlight < IN_USE * limit) {
      // Far from the limit, latency says nothing about it: requests are not queueing behind it,
      // and shrinking it would only shed the next burst.
    } else if (mean > tolerance * baseline && mean > acceptedNanos) {
      limit = Math.max(min, limit * DECREASE);
    } else {
      limit = Math.min(max, limit + Math.max(1, Math.sqrt(limit)));
    }
    windowStart = now;
    samples = 0;
    latencySum = 0;
    peakInFlight = 0;
  }

  private void remember(long now, long mean) {
    long id = now / BUCKET_NANOS;
    int slot = (int) (id % BASELINE_BUCKETS);
    if (bucketIds[slot] != id) {
      bucketIds[slot] = id;
      bucketMinima[slot] = mean;
    } else {
      bucketMinima[slot] = Math.min(bucketMinima[slot], mean);
    }
  }
}
