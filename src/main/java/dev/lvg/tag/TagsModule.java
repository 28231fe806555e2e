package dev.lvg.tag;

import dev.lvg.auth.Routes;
import dev.lvg.catalog.CatalogModule;
import dev.lvg.platform.Feature;

/** Tags, kept in the tag files Lance reads in the dataset. */
public final class TagsModule extends Feature {
  private final CatalogModule catalog;

  /** Tags of the tables of {@code catalog}. */
  public TagsModule(CatalogModule catalog) {
    super("tags");
    this.catalog = catalog;
  }

  @Override
  public void routes(Routes routes) {
    new TagRoutes(
            platform().pools().writes(),
            catalog.branches(),
            platform().storage().manifests(),
            platform().paging())
        .mount(routes);
  }
}
