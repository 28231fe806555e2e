package dev.lvg.overload;

/** The limits of a {@link ConcurrencyLimiter}, with their defaults chosen for a small machine. */
public record LimiterSettings(
    int initialLimit,
    int minLimit,
    int maxLimit,
    long maxWaitNanos,
    double tolerance,
    long acceptedLatencyNanos,
    long floorLatencyNanos) {}
