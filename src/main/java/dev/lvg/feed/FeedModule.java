package dev.lvg.feed;

import dev.lvg.auth.Routes;
import dev.lvg.config.FeedSettings;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;

/**
 * The change feed: {@code QueryEvents} and {@code StreamEvents} (a live-tail hub on each event
 * loop), with two jobs: the count of events recorded, and the expiry of events older than the
 * retention.
 */
public final class FeedModule extends Feature {
  private Feed feed;

  public FeedModule() {
    super("feed");
  }

  @Override
  protected Future<?> started(Platform platform) {
    FeedSettings settings = platform.config().feed();
    feed = new Feed(settings, platform.meters().registry());
    Pool pool = platform.pools().writes();
    platform
        .jobs()
        .every(
            "feed-recorded",
            5_000,
            5_000,
            () ->
                pool.query(Feed.RECORDED)
                    .execute()
                    .onSuccess(rows -> feed.recorded(rows.iterator().next().getLong(0))));
    FeedExpiry expiry = new FeedExpiry(pool, settings.retention(), platform.meters().registry());
    platform.jobs().every("feed-expiry", 1_000, settings.expiryEveryMillis(), expiry::pass);
    return Future.succeededFuture();
  }

  /** The feed's shared parts, once started. */
  Feed feed() {
    return feed;
  }

  @Override
  public void routes(Routes routes) {
    Pool reads = platform().pools().reads();
    FeedHub hub =
        new FeedHub(
            platform().vertx(),
            reads,
            feed,
            platform().limits().reads(),
            platform().draining(),
            platform().tenants());
    new FeedRoutes(reads, feed, hub).mount(routes);
  }
}
