package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LogBudgetTest {
  @Test
  void atMostTheBudgetEachSecondAndAFreshBudgetTheNext() {
    LogBudget budget = new LogBudget(3);
    long second = 1_000_000;
    assertThat(budget.allows(second)).isTrue();
    assertThat(budget.allows(second + 100)).isTrue();
    assertThat(budget.allows(second + 200)).isTrue();
    assertThat(budget.allows(second + 300)).isFalse();
    assertThat(budget.allows(second + 999)).isFalse();
    assertThat(budget.allows(second + 1000)).isTrue();
    assertThat(budget.allows(second + 1001)).isTrue();
  }
}
