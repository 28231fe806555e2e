package dev.lvg.overload;

/** Why a {@link ConcurrencyLimiter} refused a request. */
public enum RefusalReason {
  QUEUE_FULL,
  FAIR_SHARE,
  DEADLINE,
  /** The requester used its share of the database's time ({@link TimeBudget}). */
  DATABASE_TIME
}
