package dev.lvg.sink;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicLong;

/** A sink's meters, each tagged with the sink's name. */
final class SinkMeters {
  final Counter published;
  final Counter duplicates;
  final Counter resent;
  final Counter failures;
  final Counter missed;
  final AtomicLong lagEvents = new AtomicLong();
  final AtomicLong lagMillis = new AtomicLong();
  final AtomicLong leader = new AtomicLong();

  SinkMeters(String sink, MeterRegistry registry) {
    published =
        counter(sink, registry, "lvg_feed_sink_published", "Events the broker acknowledged");
    duplicates =
        counter(
            sink,
            registry,
            "lvg_feed_sink_duplicates",
            "Events published again (after a holder died) that the broker dropped by their id");
    resent =
        counter(
            sink,
            registry,
            "lvg_feed_sink_resent",
            "Events sent again: sent before (by a holder that died, or before the broker failed)"
                + " and not recorded as published; a broker that cannot drop them by id holds them"
                + " twice");
    failures =
        counter(
            sink,
            registry,
            "lvg_feed_sink_failures",
            "Publishes the broker refused or never answered");
    missed =
        counter(
            sink,
            registry,
            "lvg_feed_sink_missed",
            "Events that expired before they were published");
    Gauge.builder("lvg_feed_sink_lag_events", lagEvents::get)
        .tag("sink", sink)
        .description("Events recorded and not yet published, over every tenant")
        .register(registry);
    Gauge.builder("lvg_feed_sink_lag_seconds", () -> lagMillis.get() / 1000.0)
        .tag("sink", sink)
        .description("Age of the oldest event the last run published, when it was published")
        .register(registry);
    Gauge.builder("lvg_feed_sink_leader", leader::get)
        .tag("sink", sink)
        .description("1 while this gateway holds the sink's lease and publishes it")
        .register(registry);
  }

  private static Counter counter(String sink, MeterRegistry registry, String meter, String text) {
    return Counter.builder(meter).tag("sink", sink).description(text).register(registry);
  }
}
