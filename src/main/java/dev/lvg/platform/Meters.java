package dev.lvg.platform;

import dev.lvg.http.OutageLog;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.metrics.HttpMetrics;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The gateway's meters: the registry a feature registers its own in, the commit meters, the
 * per-route latency meters and the log of dependency outages.
 */
public record Meters(
    MeterRegistry registry, GatewayMetrics gateway, HttpMetrics http, OutageLog outages) {}
