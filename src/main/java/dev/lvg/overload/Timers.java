package dev.lvg.overload;

/** Schedules a one-off task; returns what cancels it. */
public interface Timers {
  Runnable schedule(long delayNanos, Runnable task);
}
