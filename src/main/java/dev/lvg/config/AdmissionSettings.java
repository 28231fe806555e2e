package dev.lvg.config;

/**
 * Admission control in front of the database and storage work (one limiter for reads, one for
 * writes): an adaptive concurrency limit between {@code minLimit} and {@code maxLimit}, starting at
 * {@code initialLimit}, that shrinks when latency exceeds both {@code tolerance} times its unloaded
 * baseline and {@code acceptedLatencyMillis}, the latency it holds admitted requests to under
 * overload, but not below what the recent throughput needs at {@code floorLatencyMillis}; a request
 * may wait at most {@code maxWaitMillis} for a slot. Each tenant's reads may take {@code
 * readTimeMillisPerSecond} of the database's time a second (from admission to answer; up to {@code
 * readTimeBurstMillis} at once; 0: no share), so that a tenant's few heavy reads cannot take the
 * time many light requests of others need. Off: no limit at all.
 */
public record AdmissionSettings(
    boolean enabled,
    int initialLimit,
    int minLimit,
    int maxLimit,
    int maxWaitMillis,
    double tolerance,
    int acceptedLatencyMillis,
    int floorLatencyMillis,
    int readTimeMillisPerSecond,
    int readTimeBurstMillis) {
  /** Reads the {@code LVG_ADMISSION_*} settings. */
  static AdmissionSettings from(Settings s) {
    int min = s.integer("LVG_ADMISSION_MIN_LIMIT", 4, 1, 100_000);
    int max = s.integer("LVG_ADMISSION_MAX_LIMIT", 512, 1, 100_000);
    int initial = s.integer("LVG_ADMISSION_INITIAL_LIMIT", 128, 1, 100_000);
    if (min > initial || initial > max) {
      throw new ConfigException(
          "LVG_ADMISSION_MIN_LIMIT <= LVG_ADMISSION_INITIAL_LIMIT <= LVG_ADMISSION_MAX_LIMIT must"
              + " hold, got "
              + min
              + ", "
              + initial
              + ", "
              + max);
    }
    String tolerance = s.string("LVG_ADMISSION_TOLERANCE", "2.0");
    double parsed;
    try {
      parsed = Double.parseDouble(tolerance);
    } catch (NumberFormatException e) {
      parsed = -1;
    }
    if (!(parsed >= 1.1 && parsed <= 100)) {
      throw new ConfigException(
          "LVG_ADMISSION_TOLERANCE must be a number between 1.1 and 100, got '" + tolerance + "'");
    }
    return new AdmissionSettings(
        s.bool("LVG_ADMISSION_ENABLED", true),
        initial,
        min,
        max,
        s.integer("LVG_ADMISSION_MAX_WAIT_MS", 1, 0, 60_000),
        parsed,
        s.integer("LVG_ADMISSION_ACCEPTED_LATENCY_MS", 15, 0, 60_000),
        s.integer("LVG_ADMISSION_FLOOR_LATENCY_MS", 20, 0, 60_000),
        s.integer("LVG_TENANT_READ_TIME_MS", 4_000, 0, 1_000_000),
        s.integer("LVG_TENANT_READ_TIME_BURST_MS", 10_000, 1, 10_000_000));
  }
}
