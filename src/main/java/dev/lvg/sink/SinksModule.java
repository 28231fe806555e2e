package dev.lvg.sink;

import dev.lvg.auth.Routes;
import dev.lvg.config.SinkSettings;
import dev.lvg.feed.FeedLog;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/**
 * The change feed published into brokers: a job per configured sink ({@code feed-sink-nats}) that
 * publishes what is due whenever this gateway holds the sink's lease. Serves no operation.
 */
public final class SinksModule extends Feature {
  private FeedSink nats;

  public SinksModule() {
    super("sinks");
  }

  @Override
  protected Future<?> started(Platform platform) {
    SinkSettings settings = platform.config().feed().sinks();
    if (settings.nats()) {
      nats =
          new FeedSink(
              "nats",
              new NatsPublisher(platform.vertx(), settings),
              platform.pools().writes(),
              new FeedLog(platform.config().feed().source()),
              settings.tenants(),
              platform.jobs()::stopping,
              platform.meters().registry());
      platform
          .jobs()
          .every("feed-sink-nats", settings.pollMillis(), settings.pollMillis(), nats::run);
    }
    return Future.succeededFuture();
  }

  @Override
  public void routes(Routes routes) {}

  @Override
  public Future<?> stop() {
    return nats == null ? Future.succeededFuture() : nats.close();
  }
}
