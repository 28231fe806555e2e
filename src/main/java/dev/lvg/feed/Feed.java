package dev.lvg.feed;

import dev.lvg.config.FeedSettings;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the change feed's parts share across event loops: its settings, its reader, the count of
 * live tails open and its meters.
 */
public final class Feed implements FeedHub.Metrics {
  private final FeedSettings settings;
  private final FeedLog log;
  private final AtomicInteger streams = new AtomicInteger();
  private final Counter streamed;
  private final Counter cutOff;

  /**
   * The feed's shared parts, with its background work started: the expiry of old events and the
   * delivery of webhooks.
   */
  public static Feed start(
      Vertx vertx,
      Pool pool,
      FeedSettings settings,
      MeterRegistry registry,
      AtomicBoolean draining) {
    Feed feed = new Feed(settings, registry);
    new FeedExpiry(vertx, pool, settings.retention(), registry).start(settings.expiryEveryMillis());
    WebhookTargets targets = new WebhookTargets(vertx, settings.webhooks().allowPrivateTargets());
    if (settings.webhooks().deliver()) {
      new WebhookDispatcher(vertx, pool, feed, targets, draining, registry).start();
    }
    return feed;
  }

  Feed(FeedSettings settings, MeterRegistry registry) {
    this.settings = settings;
    this.log = new FeedLog(settings.source());
    Gauge.builder("lvg_feed_streams", streams::get)
        .description("Live tails of the change feed (Server-Sent Events) open")
        .register(registry);
    this.streamed =
        Counter.builder("lvg_feed_events_streamed")
            .description("Change-feed events sent to live tails")
            .register(registry);
    this.cutOff =
        Counter.builder("lvg_feed_streams_cut_off")
            .description("Live tails cut off because their consumer read too slowly")
            .register(registry);
  }

  public FeedSettings settings() {
    return settings;
  }

  public FeedLog log() {
    return log;
  }

  AtomicInteger streams() {
    return streams;
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
