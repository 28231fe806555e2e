package dev.lvg.overload;

import java.util.HashMap;
import java.util.Map;

/**
 * What each tenant asked a {@link ConcurrencyLimiter} for, and what it admitted in all, a second at
 * a time: which tenants ask for little of what is being served. A tenant asks for little when, in
 * the last complete second, it asked at least once and for less than an even share of what was
 * admitted then (admitted / tenants that asked) while another tenant asked for more than that
 * share. That is max-min fairness by rate: a tenant asking for less than an even share is owed all
 * it asks, and the tenants asking for more share the rest. A tenant asking for more, tenants asking
 * alike, a lone tenant, and a tenant not seen in the last second (a flood of new API keys, say) do
 * not ask for little. The limiter runs such a tenant's requests at once, over its limit: when the
 * work slows down (a slow disk sync, a checkpoint, the event loops busy refusing a flood), a quiet
 * tenant's requests stay in flight longer, so it holds more than its share of a limit that is
 * shrinking at the same time, and shares of concurrency alone would refuse it like the tenant
 * flooding the gateway. Not thread-safe: its limiter serializes calls.
 */
final class Demand {
  static final long SECOND_NANOS = 1_000_000_000L;

  /** Admissions a second needs before any tenant counts as asking for little of them. */
  static final int MIN_ADMITTED = 20;

  private Map<String, int[]> askedNow = new HashMap<>();
  private Map<String, int[]> askedBefore = Map.of();
  private int admittedNow;
  private int admittedBefore;
  private int mostBefore;
  private long secondEnds = Long.MIN_VALUE;

  /**
   * Counts one request of {@code tenant}; answers how many it asked for in the last complete second
   * (none when that second saw no requests at all).
   */
  int ask(String tenant, long now) {
    if (now >= secondEnds) {
      boolean consecutive = now < secondEnds + SECOND_NANOS;
      askedBefore = consecutive ? askedNow : Map.of();
      admittedBefore = consecutive ? admittedNow : 0;
      mostBefore = consecutive ? most(askedNow) : 0;
      askedNow = new HashMap<>();
      admittedNow = 0;
      secondEnds = now + SECOND_NANOS;
    }
    askedNow.computeIfAbsent(tenant, name -> new int[1])[0]++;
    int[] before = askedBefore.get(tenant);
    return before == null ? 0 : before[0];
  }

  /** The most any one tenant asked for in a second. */
  private static int most(Map<String, int[]> asked) {
    int most = 0;
    for (int[] count : asked.values()) {
      most = Math.max(most, count[0]);
    }
    return most;
  }

  void admitted() {
    admittedNow++;
  }

  /**
   * Whether a tenant that asked for {@code asked} in the last complete second asked for little:
   * under an even share of what was admitted, while another tenant asked for more than one. The
   * second condition keeps a lone tenant, and tenants asking alike, behind the limit even in a
   * second that admitted a few more than they asked (requests that waited across its start).
   */
  boolean little(int asked) {
    long tenants = askedBefore.size();
    return asked > 0
        && admittedBefore >= MIN_ADMITTED
        && tenants * asked < admittedBefore
        && tenants * mostBefore > admittedBefore;
  }
}
