package dev.lvg.overload;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * What each tenant asked a {@link ConcurrencyLimiter} for, and what it admitted in all, a second at
 * a time over the last {@link #SECONDS} complete seconds: which tenants ask for little of what is
 * being served. A tenant asks for little when, in those seconds, it asked at least once, and the
 * most it asked in any one of them is less than an even share of the most admitted in any one of
 * them (that most / tenants that asked), while another tenant asked for more than that share. That
 * is max-min fairness by rate: a tenant asking for less than an even share is owed all it asks, and
 * the tenants asking for more share the rest. A tenant asking for more, tenants asking alike, a
 * lone tenant, and a tenant not seen in those seconds (a flood of new API keys, say) do not ask for
 * little. The limiter runs such a tenant's requests at once, over its limit: when the work slows
 * down (a slow disk sync, a checkpoint, the event loops busy refusing a flood), a quiet tenant's
 * requests stay in flight longer, so it holds more than its share of a limit that is shrinking at
 * the same time, and shares of concurrency alone would refuse it like the tenant flooding the
 * gateway.
 *
 * <p>Several seconds, and the most of each, so that one slow second (a disk stalling for most of it
 * admits few requests) or one second in which a quiet tenant happened to ask nothing does not make
 * it look like the tenant flooding the gateway just when its requests start to pile up. Not
 * thread-safe: its limiter serializes calls.
 */
final class Demand {
  static final long SECOND_NANOS = 1_000_000_000L;

  /** Complete seconds over which demand is judged. */
  static final int SECONDS = 5;

  /** Admissions a second needs before any tenant counts as asking for little of them. */
  static final int MIN_ADMITTED = 20;

  private static final int SLOTS = SECONDS + 1;

  /** After a tenant's slots: the most it asked in one of the complete seconds. */
  private static final int MOST = SLOTS;

  /**
   * Each tenant's asks in each second of the window, the current one included (one slot each), and
   * the most of the complete ones; a tenant that asked in none of them is dropped as a second
   * begins.
   */
  private final Map<String, int[]> asks = new HashMap<>();

  private final int[] admitted = new int[SLOTS];
  private long second = Long.MIN_VALUE;

  /** Of the complete seconds, taken when the current one began. */
  private int tenants;

  private int mostAdmitted;
  private int mostOfAnyTenant;

  /**
   * Counts one request of {@code tenant}; answers the most it asked for in one of the last complete
   * seconds (none when it asked nothing in them).
   */
  int ask(String tenant, long now) {
    roll(now);
    int[] counts = asks.computeIfAbsent(tenant, name -> new int[SLOTS + 1]);
    counts[slot(second)]++;
    return counts[MOST];
  }

  /** Counts one admission at {@code now}: a waiter admitted later counts in its own second. */
  void admitted(long now) {
    roll(now);
    admitted[slot(second)]++;
  }

  private void roll(long now) {
    long current = Math.floorDiv(now, SECOND_NANOS);
    if (current != second) {
      begin(current);
    }
  }

  /**
   * Whether a tenant that asked for {@code asked} at most in one of the last complete seconds asked
   * for little: under an even share of the most admitted in one of them, while another tenant asked
   * for more than one. The second condition keeps a lone tenant, and tenants asking alike, behind
   * the limit even in a second that admitted a few more than they asked (requests that waited
   * across its start).
   */
  boolean little(int asked) {
    return asked > 0
        && mostAdmitted >= MIN_ADMITTED
        && (long) tenants * asked < mostAdmitted
        && (long) tenants * mostOfAnyTenant > mostAdmitted;
  }

  /** A new second: the seconds that left the window are forgotten, the complete ones summed up. */
  private void begin(long current) {
    long gone = second == Long.MIN_VALUE ? SLOTS : Math.min(SLOTS, current - second);
    second = current;
    forget(admitted, gone);
    mostAdmitted = mostOf(admitted);
    tenants = 0;
    mostOfAnyTenant = 0;
    Iterator<int[]> each = asks.values().iterator();
    while (each.hasNext()) {
      int[] counts = each.next();
      forget(counts, gone);
      counts[MOST] = mostOf(counts);
      if (counts[MOST] == 0) {
        each.remove();
      } else {
        tenants++;
        mostOfAnyTenant = Math.max(mostOfAnyTenant, counts[MOST]);
      }
    }
  }

  /** Empties the slots of the last {@code gone} seconds, the current one included. */
  private void forget(int[] counts, long gone) {
    for (long s = second - gone + 1; s <= second; s++) {
      counts[slot(s)] = 0;
    }
  }

  /** The largest count among the slots of the complete seconds (all but the current one's). */
  private int mostOf(int[] counts) {
    int current = slot(second);
    int most = 0;
    for (int slot = 0; slot < SLOTS; slot++) {
      if (slot != current) {
        most = Math.max(most, counts[slot]);
      }
    }
    return most;
  }

  private static int slot(long second) {
    return (int) Math.floorMod(second, (long) SLOTS);
  }
}
