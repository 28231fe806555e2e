package dev.lvg.feed;

import dev.lvg.config.FeedSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What the change feed's parts share across event loops: its settings, its reader, the slots of
 * live tails and its meters.
 */
public final class Feed implements FeedHub.Metrics {
  /** The sum of every tenant's last position: the events recorded, read every few seconds. */
  static final String RECORDED = "SELECT COALESCE(sum(last_position), 0) FROM feed_heads";

  private static final List<String> OUTCOMES =
      List.of("delivered", "retried", "dead_lettered", "disabled");

  private final FeedSettings settings;
  private final FeedLog log;
  private final StreamSlots slots;
  private final AtomicLong recorded = new AtomicLong();
  private final AtomicLong webhookLag = new AtomicLong();
  private final List<AtomicLong> streamLags = new CopyOnWriteArrayList<>();
  private final Counter streamed;
  private final Counter cutOff;
  private final Map<String, Counter> deliveries;

  /** Sets the count of events recorded, which {@link #RECORDED} reads. */
  void recorded(long events) {
    recorded.set(events);
  }

  Feed(FeedSettings settings, MeterRegistry registry) {
    this.settings = settings;
    this.log = new FeedLog(settings.source());
    this.slots = new StreamSlots(settings);
    Gauge.builder("lvg_feed_events_recorded", recorded::get)
        .description("Events recorded in every tenant's feed (the sum of their last positions)")
        .register(registry);
    Gauge.builder("lvg_feed_streams", slots::open)
        .description("Live tails of the change feed (Server-Sent Events) open")
        .register(registry);
    Gauge.builder("lvg_feed_lag_events", this::streamLag)
        .tag("consumer", "stream")
        .description("Events the furthest-behind live tail of this gateway has yet to send")
        .register(registry);
    Gauge.builder("lvg_feed_lag_events", webhookLag::get)
        .tag("consumer", "webhook")
        .description("Events the furthest-behind enabled webhook has yet to receive")
        .register(registry);
    this.streamed =
        Counter.builder("lvg_feed_events_streamed")
            .description("Change-feed events sent to live tails")
            .register(registry);
    this.cutOff =
        Counter.builder("lvg_feed_streams_cut_off")
            .description("Live tails cut off because their consumer read too slowly")
            .register(registry);
    Map<String, Counter> counters = new java.util.HashMap<>();
    for (String outcome : OUTCOMES) {
      counters.put(
          outcome,
          Counter.builder("lvg_webhook_deliveries")
              .tag("outcome", outcome)
              .description("Webhook delivery attempts, by how they ended")
              .register(registry));
    }
    this.deliveries = Map.copyOf(counters);
  }

  public FeedSettings settings() {
    return settings;
  }

  public FeedLog log() {
    return log;
  }

  StreamSlots slots() {
    return slots;
  }

  /** A lag a hub keeps up to date for its own tails. */
  AtomicLong streamLag(AtomicLong lag) {
    streamLags.add(lag);
    return lag;
  }

  private long streamLag() {
    long max = 0;
    for (AtomicLong lag : streamLags) {
      max = Math.max(max, lag.get());
    }
    return max;
  }

  void webhookLag(long events) {
    webhookLag.set(events);
  }

  void delivery(String outcome) {
    deliveries.get(outcome).increment();
  }

  @Override
  public void streamed(int events) {
    streamed.increment(events);
  }

  @Override
  public void cutOff() {
    cutOff.increment();
  }
}
