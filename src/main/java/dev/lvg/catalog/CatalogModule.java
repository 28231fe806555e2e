package dev.lvg.catalog;

import dev.lvg.auth.Routes;
import dev.lvg.config.GatewayConfig;
import dev.lvg.platform.Exported;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/**
 * Namespaces, tables and branches, with the job that deletes dropped tables' data (a verticle of
 * its own, which resumes a drop an earlier gateway left unfinished).
 */
@Exported
public final class CatalogModule extends Feature {
  private final CatalogRepository repository = new CatalogRepository(new NamespaceRepository());
  private final BranchRepository branches = new BranchRepository(repository);
  private CatalogService service;

  public CatalogModule() {
    super("catalog");
  }

  @Override
  protected Future<?> started(Platform platform) {
    GatewayConfig config = platform.config();
    service =
        new CatalogService(
            repository,
            branches,
            new Locations(config.storageRoot(), config.s3(), platform.storage().vendor()));
    TableDrops drops =
        new TableDrops(
            platform.pools().writes(),
            platform.storage().root(),
            platform.storage().store(),
            platform.jobs()::stopping);
    platform.jobs().every("table-drops", 1, TableDrops.POLL_MILLIS, drops::run);
    return Future.succeededFuture();
  }

  public CatalogRepository repository() {
    return repository;
  }

  public BranchRepository branches() {
    return branches;
  }

  /** The catalog operations batches share; there once the module has started. */
  public CatalogService service() {
    return service;
  }

  @Override
  public void routes(Routes routes) {
    new CatalogRoutes(
            platform().pools().writes(), platform().pools().reads(), service, platform().paging())
        .mount(routes);
    new BranchRoutes(
            platform().pools().writes(), platform().pools().reads(), branches, platform().paging())
        .mount(routes);
  }
}
