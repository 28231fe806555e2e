package dev.lvg.version;

import dev.lvg.catalog.CatalogRepository;
import dev.lvg.storage.Manifests;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * Follows a writer's cleanup: Lance writers delete old manifests without telling the catalog, so
 * the versions read are checked against storage (one directory listing per directory involved) and
 * those whose manifests are gone leave the catalog. Storage is not read in record mode.
 */
final class PrunedVersions {
  /** Deletes the given versions of a live table, each only while it still has the given path. */
  static final String DELETE_PRUNED =
      """
      DELETE FROM table_versions v
      USING lance_tables t, unnest($5::bigint[], $6::text[]) AS r(version, path)
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.table_id = t.id AND v.branch = $4
        AND v.version = r.version AND v.manifest_path = r.path""";

  private final Manifests manifests;

  PrunedVersions(Manifests manifests) {
    this.manifests = manifests;
  }

  /**
   * Of {@code rows} (versions of one table and branch), those whose manifests still exist. A
   * writer's cleanup removes old manifests without telling the catalog; the versions it pruned are
   * found here, when they are read, and leave the catalog. Storage is not read in record mode.
   */
  Future<List<TableVersion>> present(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, List<TableVersion> rows) {
    if (rows.isEmpty()) {
      return Future.succeededFuture(rows);
    }
    return manifests
        .missing(rows.stream().map(TableVersion::manifestPath).toList())
        .compose(
            missing -> {
              if (missing.isEmpty()) {
                return Future.succeededFuture(rows);
              }
              List<TableVersion> gone =
                  rows.stream().filter(row -> missing.contains(row.manifestPath())).toList();
              return deletePruned(db, tenant, tableId, branch, gone)
                  .map(
                      deleted ->
                          rows.stream()
                              .filter(row -> !missing.contains(row.manifestPath()))
                              .toList());
            });
  }

  /**
   * Removes {@code gone} (versions whose manifests a writer's cleanup removed) from the catalog.
   */
  private static Future<Void> deletePruned(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, List<TableVersion> gone) {
    return db.preparedQuery(DELETE_PRUNED)
        .execute(
            Tuple.tuple()
                .addLong(tenant.id())
                .addArrayOfString(CatalogRepository.namespaceOf(tableId).toArray(String[]::new))
                .addString(CatalogRepository.nameOf(tableId))
                .addString(branch)
                .addArrayOfLong(gone.stream().map(TableVersion::version).toArray(Long[]::new))
                .addArrayOfString(
                    gone.stream().map(TableVersion::manifestPath).toArray(String[]::new)))
        .mapEmpty();
  }
}
