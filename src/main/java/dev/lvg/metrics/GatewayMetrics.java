package dev.lvg.metrics;

import dev.lvg.http.ApiException;
import dev.lvg.http.Failures;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntSupplier;

/**
 * The gateway's own meters, beside the HTTP, pool and JVM meters Vert.x records. Labels are a
 * fixed, small set: no tenant, table or path ever becomes a label value.
 */
public final class GatewayMetrics {
  /** How a {@code version/create} ended. */
  public enum Outcome {
    CREATED,
    REPLAYED,
    CONFLICT,
    NOT_FOUND,
    INVALID,
    UNAUTHORIZED,
    SHED,
    UNAVAILABLE,
    ERROR
  }

  private final Map<Outcome, Counter> creates = new EnumMap<>(Outcome.class);
  private final DistributionSummary batchSizes;
  private final Counter withoutTransaction;
  private final MeterRegistry registry;

  public GatewayMetrics(MeterRegistry registry) {
    this.registry = registry;
    for (Outcome outcome : Outcome.values()) {
      creates.put(
          outcome,
          Counter.builder("lvg_version_create")
              .description("version/create requests by outcome")
              .tag("outcome", outcome.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
    batchSizes =
        DistributionSummary.builder("lvg_commit_batch_size")
            .description("version/create requests committed by one statement")
            .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128, 256)
            .register(registry);
    withoutTransaction =
        Counter.builder("lvg_manifests_without_transaction")
            .description(
                "staging manifests read for finalization that name no Lance transaction; their"
                    + " versions are committed without the once-per-transaction check")
            .register(registry);
  }

  /** Counts a staging manifest that names no Lance transaction. */
  public void versionWithoutTransaction() {
    withoutTransaction.increment();
  }

  /** Follows how many {@code version/create} requests wait for a group commit. */
  public void watchCommitQueue(IntSupplier waiting) {
    Gauge.builder("lvg_commit_queue_waiting", waiting::getAsInt)
        .description("version/create requests waiting for a group commit")
        .register(registry);
  }

  /** Records the size of a commit batch (requests sharing one statement). */
  public void commitBatch(int size) {
    batchSizes.record(size);
  }

  /** Counts a {@code version/create} that succeeded. */
  public void versionCreated(boolean created) {
    creates.get(created ? Outcome.CREATED : Outcome.REPLAYED).increment();
  }

  /** Counts a {@code version/create} that failed, by the failure's classification. */
  public void versionCreateFailed(Throwable failure) {
    creates.get(outcomeOf(failure)).increment();
  }

  static Outcome outcomeOf(Throwable failure) {
    Failures.Failure classified = Failures.classify(failure);
    return switch (classified.kind()) {
      case SHED -> Outcome.SHED;
      case UNAVAILABLE -> Outcome.UNAVAILABLE;
      case INTERNAL -> Outcome.ERROR;
      case CLIENT -> clientOutcome(classified.error());
    };
  }

  private static Outcome clientOutcome(ApiException error) {
    return switch (error.errorCode()) {
      case CONCURRENT_MODIFICATION -> Outcome.CONFLICT;
      case NAMESPACE_NOT_FOUND, TABLE_NOT_FOUND, TABLE_BRANCH_NOT_FOUND -> Outcome.NOT_FOUND;
      case UNAUTHENTICATED, PERMISSION_DENIED -> Outcome.UNAUTHORIZED;
      default -> Outcome.INVALID;
    };
  }
}
