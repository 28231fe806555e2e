package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A requester's share of the time requests take: charged when they end, refilled over time. */
class TimeBudgetTest {
  private static final long MS = 1_000_000L;

  @Test
  void aRequesterInDebtWaitsUntilItsShareRefillsAndOthersDoNot() {
    // 100 ms a second, up to 200 ms at once.
    TimeBudget budget = new TimeBudget(0.1, 200 * MS);
    long now = 0;
    assertThat(budget.wait("heavy", now, 0)).isZero();
    budget.charge("heavy", 150 * MS, now);
    assertThat(budget.wait("heavy", now, 0)).as("50 ms left").isZero();
    budget.charge("heavy", 150 * MS, now);
    long owed = budget.wait("heavy", now, 0);
    assertThat(owed)
        .as("100 ms in debt at 100 ms a second: a second")
        .isBetween(990 * MS, 1010 * MS);
    assertThat(budget.wait("light", now, 0)).isZero();
    assertThat(budget.wait("heavy", now + owed + MS, 0)).isZero();
    assertThat(budget.wait("light", now, 250 * MS))
        .as("requests still running count as they go")
        .isPositive();
  }

  @Test
  void aQuietRequesterRefillsOnlyUpToItsBurst() {
    TimeBudget budget = new TimeBudget(0.1, 200 * MS);
    budget.charge("t", 10 * MS, 0);
    long later = 3600_000 * MS;
    budget.charge("t", 199 * MS, later);
    assertThat(budget.wait("t", later, 0)).isZero();
    budget.charge("t", 2 * MS, later);
    assertThat(budget.wait("t", later, 0)).isPositive();
  }
}
