package dev.lvg.restore;

import dev.lvg.auth.Routes;
import dev.lvg.catalog.CatalogModule;
import dev.lvg.platform.Feature;
import dev.lvg.version.VersionsModule;

/** {@code RestoreTable}: an old version made the latest again, committed as a new version. */
public final class RestoreModule extends Feature {
  private final CatalogModule catalog;
  private final VersionsModule versions;

  /** Restores of the tables of {@code catalog}, committed through {@code versions}. */
  public RestoreModule(CatalogModule catalog, VersionsModule versions) {
    super("restore");
    this.catalog = catalog;
    this.versions = versions;
  }

  @Override
  public void routes(Routes routes) {
    new RestoreRoutes(
            platform().pools().reads(),
            catalog.branches(),
            versions.service(),
            new Restores(platform().storage().manifests(), platform().clock()))
        .mount(routes);
  }
}
