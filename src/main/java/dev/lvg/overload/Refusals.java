package dev.lvg.overload;

import dev.lvg.http.ApiException;

/** The 503 "Slow down" answers of a {@link ConcurrencyLimiter}, each saying why. */
final class Refusals {
  private Refusals() {}

  /** A refusal at the limit of {@code limit} concurrent requests of class {@code name}. */
  static ApiException atLimit(
      String name, int limit, ConcurrencyLimiter.Reason reason, long maxWaitNanos, int seconds) {
    String why =
        switch (reason) {
          case QUEUE_FULL -> "its waiting room is full";
          case FAIR_SHARE -> "this tenant has its fair share of them";
          case DEADLINE ->
              "could not start this request within " + maxWaitNanos / 1_000_000 + " ms";
          case DATABASE_TIME -> "this tenant used its share of their time";
        };
    return ApiException.shed(
        "the gateway is at its limit of "
            + limit
            + " concurrent "
            + name
            + " and "
            + why
            + "; retry shortly",
        seconds);
  }

  /**
   * A refusal of a requester that owes {@code owedNanos} of the time requests of {@code name} take.
   */
  static ApiException overBudget(String name, long owedNanos) {
    int seconds = (int) Math.max(1, Math.min(60, (owedNanos + 999_999_999L) / 1_000_000_000L));
    return ApiException.shed(
        "this tenant used its share of the time "
            + name
            + " may take (LVG_TENANT_READ_TIME_MS a second); retry in "
            + seconds
            + " s",
        seconds);
  }
}
