package dev.lvg.http;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most {@code perSecond} log lines a second for one kind of line, so that what clients can
 * provoke at will (their own mistakes) cannot flood the log even when DEBUG is on. Thread-safe.
 */
public final class LogBudget {
  /** The budget of lines about client mistakes, shared by everything in this package. */
  static final LogBudget CLIENT_MISTAKES = new LogBudget(10);

  private final int perSecond;
  private final AtomicLong second = new AtomicLong(Long.MIN_VALUE);
  private final AtomicInteger spent = new AtomicInteger();

  public LogBudget(int perSecond) {
    this.perSecond = perSecond;
  }

  /** True when one more line may be written now ({@code nowMillis}: the wall clock). */
  public boolean allows(long nowMillis) {
    long current = nowMillis / 1000;
    long seen = second.get();
    if (seen != current && second.compareAndSet(seen, current)) {
      spent.set(0);
    }
    return spent.incrementAndGet() <= perSecond;
  }
}
