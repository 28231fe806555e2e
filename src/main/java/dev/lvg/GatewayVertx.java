package dev.lvg;

import dev.lvg.config.GatewayConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MetricsNaming;
import io.vertx.micrometer.MicrometerMetricsFactory;
import io.vertx.micrometer.MicrometerMetricsOptions;
import java.util.EnumSet;
import java.util.UUID;

/** The Vert.x instances of one gateway: the API's event loops and meters, and management's. */
final class GatewayVertx {
  private GatewayVertx() {}

  static Vertx create(GatewayConfig config, PrometheusMeterRegistry registry) {
    return Vertx.builder()
        .with(
            new VertxOptions()
                // One event loop per API verticle, shared by the commit pipeline and the
                // pools: Vert.x's default of two per core left a batch's hand-offs (HTTP
                // loop, pipeline, connection, and back) waking threads that then waited for a
                // core, and cost a quarter of the record-mode commit rate on two cores.
                .setEventLoopPoolSize(config.httpInstances())
                .setMetricsOptions(
                    new MicrometerMetricsOptions()
                        .setEnabled(true)
                        // Vert.x keeps meter registries by name, process-wide: each gateway
                        // (several run in one test JVM) needs a name of its own, or its pool
                        // and JVM meters would land in the first gateway's registry.
                        .setRegistryName("lvg-" + UUID.randomUUID())
                        .setJvmMetricsEnabled(true)
                        // The gateway times its routes itself (HttpMetrics), at a fraction
                        // of the per-request cost of the generic HTTP and socket meters.
                        .addDisabledMetricsCategory(MetricsDomain.HTTP_SERVER)
                        .addDisabledMetricsCategory(MetricsDomain.NET_SERVER)
                        .setLabels(EnumSet.of(Label.POOL_TYPE, Label.POOL_NAME))))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
  }

  /**
   * The management port's own instance: one event loop and one worker of its own, so probes and
   * scrapes are answered while the API's event loops work through a flood. On the API's loops, a
   * readiness probe waited behind every request queued before it: up to 1.35 s under a flood of
   * four times what the gateway can serve.
   *
   * <p>Its pools (the health check's connection, its worker threads) report to the same registry
   * under names of their own, {@code vertx_pool_management_*}: under the API's names its worker
   * pools, named as Vert.x names every instance's, would add to the API's in the same meters.
   */
  static Vertx management(PrometheusMeterRegistry registry) {
    MicrometerMetricsOptions metrics =
        new MicrometerMetricsOptions()
            .setEnabled(true)
            .setRegistryName("lvg-management-" + UUID.randomUUID())
            .setMetricsNaming(
                MetricsNaming.v4Names()
                    .setPoolQueueTime("management.queue.time")
                    .setPoolQueuePending("management.queue.pending")
                    .setPoolUsage("management.usage")
                    .setPoolInUse("management.in.use")
                    .setPoolUsageRatio("management.ratio")
                    .setPoolCompleted("management.completed"))
            .setLabels(EnumSet.of(Label.POOL_TYPE, Label.POOL_NAME));
    for (MetricsDomain domain : MetricsDomain.values()) {
      if (domain != MetricsDomain.NAMED_POOLS) {
        metrics.addDisabledMetricsCategory(domain);
      }
    }
    return Vertx.builder()
        .with(
            new VertxOptions()
                .setEventLoopPoolSize(1)
                .setWorkerPoolSize(1)
                .setInternalBlockingPoolSize(1)
                .setMetricsOptions(metrics))
        .withMetrics(new MicrometerMetricsFactory(registry))
        .build();
  }
}
