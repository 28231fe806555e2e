package dev.lvg.metrics;

import dev.lvg.http.ApiException;
import dev.lvg.version.VersionRepository;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.AsyncResult;
import java.util.EnumMap;
import java.util.Map;

/**
 * The gateway's own meters, beside the HTTP, pool and JVM meters Vert.x records. Labels are a
 * fixed, small set: no tenant, table or path ever becomes a label value.
 */
public final class GatewayMetrics {
  /** How a {@code version/create} ended. */
  public enum Outcome { CREATED, REPLAYED, CONFLICT, NOT_FOUND, INVALID, UNAVAILABLE, ERROR }

  private final Map<Outcome, Counter> creates = new EnumMap<>(Outcome.class);

  public GatewayMetrics(MeterRegistry registry) {
    for (Outcome outcome : Outcome.values()) {
      creates.put(outcome, Counter.builder("lvg_version_create")
          .description("version/create requests by outcome")
          .tag("outcome", outcome.name().toLowerCase(java.util.Locale.ROOT))
          .register(registry));
    }
  }

  public void versionCreate(AsyncResult<VersionRepository.Commit> result) {
    creates.get(outcomeOf(result)).increment();
  }

  static Outcome outcomeOf(AsyncResult<VersionRepository.Commit> result) {
    if (result.succeeded()) {
      return result.result().created() ? Outcome.CREATED : Outcome.REPLAYED;
    }
    if (!(result.cause() instanceof ApiException api)) {
      return Outcome.ERROR;
    }
    return switch (api.errorCode()) {
      case CONCURRENT_MODIFICATION -> Outcome.CONFLICT;
      case NAMESPACE_NOT_FOUND, TABLE_NOT_FOUND, TABLE_BRANCH_NOT_FOUND -> Outcome.NOT_FOUND;
      case INVALID_INPUT -> Outcome.INVALID;
      case SERVICE_UNAVAILABLE -> Outcome.UNAVAILABLE;
      default -> Outcome.ERROR;
    };
  }
}
