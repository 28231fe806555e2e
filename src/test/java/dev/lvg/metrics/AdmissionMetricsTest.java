package dev.lvg.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.overload.Grant;
import dev.lvg.overload.RefusalReason;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

class AdmissionMetricsTest {
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final AdmissionMetrics metrics = AdmissionMetrics.of(registry, "writes");

  @Test
  void decisionsAreCountedByOutcomeReasonAndRequester() {
    metrics.admitted("acme", 0, Grant.FREE_SLOT);
    metrics.admitted("acme", 0, Grant.FREE_SLOT);
    metrics.admitted("acme", 3_000_000, Grant.WAITED);
    metrics.admitted("globex", 0, Grant.LITTLE_DEMAND);
    metrics.refused("acme", RefusalReason.FAIR_SHARE);
    metrics.refused("acme", RefusalReason.DEADLINE);
    metrics.refused("acme", RefusalReason.DEADLINE);

    assertThat(count("acme", "admitted", "free_slot")).isEqualTo(2);
    assertThat(count("acme", "admitted", "waited")).isEqualTo(1);
    assertThat(count("globex", "admitted", "little_demand")).isEqualTo(1);
    assertThat(count("acme", "shed", "fair_share")).isEqualTo(1);
    assertThat(count("acme", "shed", "deadline")).isEqualTo(2);
    // Only what happened is a series: no zero counters for reasons never seen.
    assertThat(registry.find("lvg_admission").counters()).hasSize(5);
    assertThat(registry.find("lvg_admission_wait").timer().count()).isEqualTo(4);
  }

  @Test
  void requestersPastTheLabelledOnesShareOneLabel() {
    int requesters = AdmissionMetrics.MAX_REQUESTERS + 5;
    for (int round = 0; round < 2; round++) {
      for (int i = 0; i < requesters; i++) {
        metrics.refused("tenant-" + i, RefusalReason.QUEUE_FULL);
      }
    }

    for (int i = 0; i < AdmissionMetrics.MAX_REQUESTERS; i++) {
      assertThat(count("tenant-" + i, "shed", "queue_full")).isEqualTo(2);
    }
    assertThat(count(AdmissionMetrics.OTHER, "shed", "queue_full")).isEqualTo(10);
    assertThat(registry.find("lvg_admission").counters())
        .hasSize(AdmissionMetrics.MAX_REQUESTERS + 1);
  }

  private double count(String requester, String outcome, String reason) {
    Counter counter =
        registry
            .find("lvg_admission")
            .tags("class", "writes", "requester", requester, "outcome", outcome, "reason", reason)
            .counter();
    assertThat(counter).as("%s %s %s", requester, outcome, reason).isNotNull();
    return counter.count();
  }
}
