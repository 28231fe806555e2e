package dev.lvg.version;

import dev.lvg.auth.Routes;
import dev.lvg.catalog.CatalogModule;
import dev.lvg.config.GatewayConfig;
import dev.lvg.platform.Exported;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/**
 * {@code CreateTableVersion} and the version family, through the group-commit pipeline the
 * gateway's event loops share.
 */
@Exported
public final class VersionsModule extends Feature {
  private final CatalogModule catalog;
  private VersionService service;

  /** Versions of the tables of {@code catalog}. */
  public VersionsModule(CatalogModule catalog) {
    super("versions");
    this.catalog = catalog;
  }

  @Override
  protected Future<?> started(Platform platform) {
    GatewayConfig config = platform.config();
    VersionRepository versions =
        new VersionRepository(catalog.repository(), catalog.branches(), platform.distributed());
    CommitPipeline pipeline =
        new CommitPipeline(
            platform.vertx(),
            platform.pools().writes(),
            versions,
            platform.storage().manifests(),
            config.commitBatchesInFlight(),
            config.commitBatchSize(),
            platform.distributed(),
            platform.meters().gateway());
    service = new VersionService(versions, pipeline);
    return Future.succeededFuture();
  }

  /** The version operations batches share; there once the module has started. */
  public VersionService service() {
    return service;
  }

  @Override
  public void routes(Routes routes) {
    new VersionRoutes(
            platform().pools().writes(), platform().pools().reads(), service, platform().paging())
        .mount(routes);
  }
}
