package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/** The 503 "Slow down" answers of a {@link ConcurrencyLimiter}, each saying why. */
final class Refusals {
  private Refusals() {}

  /** A refusal at the limit of {@code limit} concurrent requests of class {@code name}. */
  static ApiException atLimit(
      String name, int limit, RefusalReason reason, long maxWaitNanos, int seconds) {
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

  /** The longest a refusal for time used is held before it is answered. */
  static final long MAX_HOLD_NANOS = 1_000_000_000L;

  /**
   * The refusal of a requester that owes {@code owedNanos}, answered once the time owed (at most
   * {@link #MAX_HOLD_NANOS}) has passed: a client that ignores Retry-After and asks again at once
   * then costs the gateway one refusal a second per connection, not thousands, while the time it
   * owes refills.
   */
  static Future<ConcurrencyLimiter.Permit> heldOverBudget(
      String name, long owedNanos, Timers timers) {
    Promise<ConcurrencyLimiter.Permit> refused = Promise.promise();
    ApiException error = overBudget(name, owedNanos);
    timers.schedule(Math.min(owedNanos, MAX_HOLD_NANOS), () -> refused.fail(error));
    return refused.future();
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
