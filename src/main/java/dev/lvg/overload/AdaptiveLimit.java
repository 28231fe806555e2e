package dev.lvg.overload;

import java.util.Arrays;

/**
 * A concurrency limit that follows measured latency (additive increase, multiplicative decrease).
 * Latency samples are gathered in windows; at the end of each window its mean latency is compared
 * with a target: the larger of {@code acceptedNanos} and {@code tolerance} times the baseline.
 *
 * <ul>
 *   <li>with the limit not in use during the window (in-flight stayed below {@link #IN_USE} of it),
 *       it stays: latency far from the limit is not caused by it;
 *   <li>above the target, requests are queueing somewhere (the database, the disk, the event
 *       loops): the limit shrinks by {@link #DECREASE};
 *   <li>otherwise the limit grows by about its square root.
 * </ul>
 *
 * The accepted latency is what the limit holds admitted requests to under overload: a
 * group-committing server's latency rises with its batches well before it is overloaded, so the
 * limit lets it rise that far. The baseline is the latency without load: the lowest window mean of
 * the last {@link #BASELINE_BUCKETS} seconds among light windows (few requests in flight, at most
 * {@link #LIGHT} of the limit, and at least {@link #BASELINE_MIN_SAMPLES} of them finished) and
 * windows at the configured minimum, or the last such mean when there was none since (until the
 * first such window, every window counts). Loaded windows do not count, so under lasting overload
 * the baseline does not creep up with the latency the limit itself allows; windows at the minimum
 * do, so where the environment alone is slower than the accepted latency, the target follows it
 * instead of pinning the limit to its minimum. Old minima are forgotten after a while, so a lasting
 * change in the environment moves the baseline.
 *
 * <p>The limit never shrinks below what the highest throughput of the last {@link #RATE_BUCKETS}
 * seconds needs at the floor latency, or at the target when that is higher (Little's law: that
 * throughput times that latency). A floor latency above the accepted one lets the limit hold
 * latency tight while shrinking, yet keep enough concurrency for the throughput it has shown.
 * Latency that rises for reasons the limit cannot cure (a disk that slows down for a while, event
 * loops busy refusing a flood) then does not take throughput down with it: refusing more does not
 * make the admitted faster when the refusals themselves take the cores, and a limit that followed
 * such latency down would shed ever more. If it lasts, the highest recent throughput falls and the
 * limit may follow. Time comes from the caller, so the logic runs with a fake clock in tests. Not
 * thread-safe: its owner serializes calls.
 */
final class AdaptiveLimit {
  static final double DECREASE = 0.9;
  static final double IN_USE = 0.8;

  /**
   * In-flight, as a share of the limit, at or below which a window shows latency without load: a
   * window merely below {@link #IN_USE} may still have its requests queueing behind a batch.
   */
  static final double LIGHT = 0.125;

  static final int BASELINE_BUCKETS = 10;
  static final int RATE_BUCKETS = 30;
  private static final long BUCKET_NANOS = 1_000_000_000L;
  private static final int MIN_SAMPLES = 5;

  /**
   * Samples a window needs to count for the baseline: a few slow requests (a batch of hundreds of
   * declarations, say) in a quiet window are not the latency of the load the limit protects.
   */
  static final int BASELINE_MIN_SAMPLES = 20;

  private final int min;
  private final int max;
  private final long windowNanos;
  private final double tolerance;
  private final long acceptedNanos;
  private final long floorNanos;

  private double limit;
  private long windowStart = Long.MIN_VALUE;
  private int samples;
  private long latencySum;
  private int peakInFlight;
  private long recentMeanNanos;
  private double recentRatePerSecond;
  private long lastUnqueuedMean;
  private boolean sawUnqueued;

  private final PerSecond unqueuedMinima = new PerSecond(BASELINE_BUCKETS, true);
  private final PerSecond rateMaxima = new PerSecond(RATE_BUCKETS, false);

  /** The limit {@code settings} give, sampled in windows of {@code windowNanos}. */
  AdaptiveLimit(LimiterSettings settings, long windowNanos) {
    min = settings.minLimit();
    max = settings.maxLimit();
    int initial = settings.initialLimit();
    if (min < 1 || max < min || initial < min || initial > max) {
      throw new IllegalArgumentException("need 1 <= min <= initial <= max");
    }
    limit = initial;
    this.windowNanos = windowNanos;
    tolerance = settings.tolerance();
    acceptedNanos = settings.acceptedLatencyNanos();
    floorNanos = settings.floorLatencyNanos();
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

  /**
   * The lowest mean of the last seconds' windows that were not queueing behind the limit; the last
   * such mean when none was that recent; 0 before the first.
   */
  long baselineNanos(long now) {
    long baseline = (long) unqueuedMinima.best(now, 0);
    return baseline == 0 ? lastUnqueuedMean : baseline;
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
    rateMaxima.add(now, recentRatePerSecond);
    boolean inUse = peakInFlight >= IN_USE * limit;
    boolean light = peakInFlight <= Math.max(min, LIGHT * limit) && samples >= BASELINE_MIN_SAMPLES;
    if (light || inUse && limit <= min) {
      if (!sawUnqueued) {
        sawUnqueued = true;
        unqueuedMinima.clear();
      }
      remember(now, mean);
    } else if (!sawUnqueued) {
      // No window without queueing yet (overloaded from the start): every window counts until one.
      remember(now, mean);
    }
    long baseline = baselineNanos(now);
    long target = (long) Math.max(acceptedNanos, tolerance * (baseline == 0 ? mean : baseline));
    if (!inUse) {
      // Far from the limit, latency says nothing about it: requests are not queueing behind it,
      // and shrinking it would only shed the next burst.
    } else if (mean > target) {
      limit = Math.max(Math.min(limit, floor(now, Math.max(target, floorNanos))), limit * DECREASE);
    } else {
      limit = Math.min(max, limit + Math.max(1, Math.sqrt(limit)));
    }
    windowStart = now;
    samples = 0;
    latencySum = 0;
    peakInFlight = 0;
  }

  /**
   * The least the limit shrinks to: what the highest throughput of the last seconds needs at {@code
   * latencyNanos}; never below the configured minimum.
   */
  int floor(long now, long latencyNanos) {
    double needed = rateMaxima.best(now, 0) * latencyNanos / 1e9;
    return (int) Math.max(min, Math.min(max, Math.ceil(needed)));
  }

  private void remember(long now, long mean) {
    lastUnqueuedMean = mean;
    unqueuedMinima.add(now, mean);
  }

  /** The least (or greatest) value seen in each of the last seconds, one bucket a second. */
  private static final class PerSecond {
    private final double[] values;
    private final long[] seconds;
    private final boolean least;

    PerSecond(int buckets, boolean least) {
      this.values = new double[buckets];
      this.seconds = new long[buckets];
      this.least = least;
      clear();
    }

    void clear() {
      Arrays.fill(seconds, -1);
    }

    void add(long now, double value) {
      long second = now / BUCKET_NANOS;
      int slot = (int) (second % seconds.length);
      if (seconds[slot] != second) {
        seconds[slot] = second;
        values[slot] = value;
      } else {
        values[slot] = better(values[slot], value);
      }
    }

    /** The least (or greatest) value of the last seconds, or {@code none} without one. */
    double best(long now, double none) {
      long current = now / BUCKET_NANOS;
      double best = none;
      boolean any = false;
      for (int i = 0; i < seconds.length; i++) {
        if (seconds[i] >= 0 && current - seconds[i] < seconds.length) {
          best = any ? better(best, values[i]) : values[i];
          any = true;
        }
      }
      return best;
    }

    private double better(double a, double b) {
      return least ? Math.min(a, b) : Math.max(a, b);
    }
  }
}
