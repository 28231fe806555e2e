package dev.lvg;

import dev.lvg.admin.AdminModule;
import dev.lvg.batch.BatchModule;
import dev.lvg.catalog.CatalogModule;
import dev.lvg.config.GatewayConfig;
import dev.lvg.console.ConsoleModule;
import dev.lvg.feed.FeedModule;
import dev.lvg.feed.WebhooksModule;
import dev.lvg.platform.Module;
import dev.lvg.restore.RestoreModule;
import dev.lvg.sink.SinksModule;
import dev.lvg.tag.TagsModule;
import dev.lvg.transaction.TransactionsModule;
import dev.lvg.version.VersionsModule;
import java.util.ArrayList;
import java.util.List;

/**
 * The module map: the features a gateway runs, in the order they start and serve their routes (they
 * stop in the reverse order). A feature that is off is left out of the list.
 */
final class Modules {
  private Modules() {}

  static List<Module> of(GatewayConfig config) {
    CatalogModule catalog = new CatalogModule();
    VersionsModule versions = new VersionsModule(catalog);
    FeedModule feed = new FeedModule();
    List<Module> modules = new ArrayList<>();
    if (config.console()) {
      modules.add(new ConsoleModule());
    }
    modules.addAll(
        List.of(
            versions,
            catalog,
            new BatchModule(catalog, versions),
            new RestoreModule(catalog, versions),
            new TransactionsModule(),
            new TagsModule(catalog),
            new AdminModule(),
            feed,
            new WebhooksModule(feed),
            new SinksModule()));
    return List.copyOf(modules);
  }
}
