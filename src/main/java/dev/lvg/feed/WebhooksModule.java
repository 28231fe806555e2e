package dev.lvg.feed;

import dev.lvg.auth.Routes;
import dev.lvg.config.WebhookSettings;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/**
 * Webhooks: their administration on the admin API and, when this gateway delivers, the job that
 * delivers the feed to them (the endpoints due each round, leased so that replicas share them).
 */
public final class WebhooksModule extends Feature {
  private final FeedModule feed;
  private WebhookTargets targets;

  /** Webhooks deliver the events of {@code feed}. */
  public WebhooksModule(FeedModule feed) {
    super("webhooks");
    this.feed = feed;
  }

  @Override
  protected Future<?> started(Platform platform) {
    WebhookSettings settings = platform.config().feed().webhooks();
    targets = new WebhookTargets(platform.vertx(), settings.allowPrivateTargets());
    if (settings.deliver()) {
      WebhookDispatcher dispatcher =
          new WebhookDispatcher(
              platform.vertx(),
              platform.pools().writes(),
              feed.feed(),
              targets,
              platform.draining());
      platform
          .jobs()
          .every(
              "webhook-delivery", settings.pollMillis(), settings.pollMillis(), dispatcher::round);
    }
    return Future.succeededFuture();
  }

  @Override
  public void routes(Routes routes) {
    new WebhookRoutes(platform().pools().writes(), targets).mount(routes);
  }
}
