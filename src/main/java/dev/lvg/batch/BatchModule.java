package dev.lvg.batch;

import dev.lvg.auth.Routes;
import dev.lvg.catalog.CatalogModule;
import dev.lvg.overload.TenantTurns;
import dev.lvg.platform.Feature;
import dev.lvg.version.VersionsModule;

/**
 * Batch-create and batch-commit: many catalog and version operations in one transaction, a tenant's
 * batches one at a time on each gateway.
 */
public final class BatchModule extends Feature {
  /** A tenant's batches that may wait their turn on one gateway; the next gets 503. */
  static final int MAX_WAITING = 64;

  private final CatalogModule catalog;
  private final VersionsModule versions;
  private final TenantTurns turns = new TenantTurns(MAX_WAITING);

  /** Batches of the operations of {@code catalog} and {@code versions}. */
  public BatchModule(CatalogModule catalog, VersionsModule versions) {
    super("batch");
    this.catalog = catalog;
    this.versions = versions;
  }

  @Override
  public void routes(Routes routes) {
    new BatchRoutes(platform().pools().writes(), catalog.service(), versions.service(), turns)
        .mount(routes);
  }
}
