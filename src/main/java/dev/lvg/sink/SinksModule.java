package dev.lvg.sink;

import dev.lvg.auth.Routes;
import dev.lvg.config.SinkSettings;
import dev.lvg.feed.FeedLog;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/**
 * The change feed published into brokers: a job per configured sink ({@code feed-sink-kafka},
 * {@code feed-sink-nats}; none by default), and {@code GET /admin/v1/sinks} (an empty list when
 * none is configured); each job publishes what is due whenever this gateway holds the sink's lease.
 * Serves no operation.
 */
public final class SinksModule extends Feature {
  private FeedSink nats;
  private FeedSink kafka;

  public SinksModule() {
    super("sinks");
  }

  @Override
  protected Future<?> started(Platform platform) {
    SinkSettings settings = platform.config().feed().sinks();
    if (settings.kafka()) {
      kafka = sink(platform, "kafka", new KafkaPublisher(platform.vertx(), settings));
    }
    if (settings.nats()) {
      nats = sink(platform, "nats", new NatsPublisher(platform.vertx(), settings));
    }
    return Future.succeededFuture();
  }

  /** The sink {@code name}, publishing through {@code publisher}, run by the job feed-sink-name. */
  private static FeedSink sink(Platform platform, String name, Publisher publisher) {
    SinkSettings settings = platform.config().feed().sinks();
    FeedSink sink =
        new FeedSink(
            name,
            publisher,
            platform.pools().writes(),
            new FeedLog(platform.config().feed().source()),
            settings.tenants(),
            settings.selectedTenants(),
            platform.jobs()::stopping,
            platform.meters().registry());
    platform
        .jobs()
        .every("feed-sink-" + name, settings.pollMillis(), settings.pollMillis(), sink::run);
    return sink;
  }

  @Override
  public void routes(Routes routes) {
    SinkSettings settings = platform().config().feed().sinks();
    new SinkRoutes(platform().pools(), SinkRoutes.configured(settings), settings).mount(routes);
  }

  @Override
  public Future<?> stop() {
    return Future.all(
        kafka == null ? Future.succeededFuture() : kafka.close(),
        nats == null ? Future.succeededFuture() : nats.close());
  }
}
