package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.TableId;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * Branches of a table. {@code main} always exists and is not stored; every other branch records the
 * branch and version it starts from, and its own version chain continues from there.
 */
@Exported
public final class BranchRepository {
  static final String FIND_BRANCH =
      """
      SELECT parent_branch, parent_version FROM table_branches WHERE tenant_id = $1 AND table_id = $2 AND name = $3""";
  static final String VERSION_SIZE =
      """
      SELECT manifest_size FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3 AND version = $4""";
  static final String LATEST_VERSION =
      """
      SELECT version, manifest_size FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3
      ORDER BY version DESC LIMIT 1""";
  static final String INSERT_BRANCH =
      """
      INSERT INTO table_branches (tenant_id, table_id, name, parent_branch, parent_version, manifest_size)
      VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING name""";
  static final String LIST_BRANCHES =
      """
      SELECT name, parent_branch, parent_version, manifest_size, metadata,
             extract(epoch FROM created_at)::bigint AS created_at
      FROM table_branches WHERE tenant_id = $1 AND table_id = $2 AND name > $3 ORDER BY name LIMIT $4""";
  static final String DELETE_BRANCH_VERSIONS =
      "DELETE FROM table_versions WHERE tenant_id = $1 AND table_id = $2 AND branch = $3";
  static final String DELETE_BRANCH =
      "DELETE FROM table_branches WHERE tenant_id = $1 AND table_id = $2 AND name = $3";

  /** A stored branch; {@code parentBranch} is {@code main} for branches made from main. */
  public record Branch(
      String name,
      String parentBranch,
      long parentVersion,
      long manifestSize,
      JsonObject metadata,
      long createdAtSeconds) {}

  /**
   * Where a branch starts: the parent's version it branches from, if the parent itself is a branch.
   */
  private record Origin(Long parentVersion) {}

  private final CatalogRepository catalog;

  public BranchRepository(CatalogRepository catalog) {
    this.catalog = catalog;
  }

  /** The table, after checking the branch exists on it (404 code 1, 4 or 22 otherwise). */
  public Future<TableRecord> requireBranch(
      SqlClient db, Tenant tenant, TableId tableId, String branch) {
    return catalog
        .findTable(db, tenant, tableId)
        .compose(table -> origin(db, tenant, table, branch).map(table));
  }

  private Future<Origin> origin(SqlClient db, Tenant tenant, TableRecord table, String branch) {
    if (Branches.MAIN.equals(branch)) {
      return Future.succeededFuture(new Origin(null));
    }
    return db.preparedQuery(FIND_BRANCH)
        .execute(Tuple.of(tenant.id(), table.id(), branch))
        .map(
            rows -> {
              if (rows.size() == 0) {
                throw Branches.notFound(branch);
              }
              return new Origin(rows.iterator().next().getLong("parent_version"));
            });
  }

  /**
   * Creates branch {@code name} from {@code fromVersion} of {@code fromBranch} (default: the latest
   * version of main). The version must be on the source branch's chain.
   */
  public Future<Void> create(
      SqlClient db,
      Tenant tenant,
      TableId tableId,
      String name,
      String fromBranch,
      Long fromVersion) {
    return catalog
        .findTable(db, tenant, tableId)
        .compose(
            table -> {
              if (Branches.MAIN.equals(name)) {
                return Future.failedFuture(alreadyExists(name));
              }
              return origin(db, tenant, table, fromBranch)
                  .compose(
                      source -> startingPoint(db, tenant, table, fromBranch, source, fromVersion))
                  .compose(
                      start ->
                          db.preparedQuery(INSERT_BRANCH)
                              .execute(
                                  Tuple.of(
                                      tenant.id(),
                                      table.id(),
                                      name,
                                      fromBranch,
                                      start[0],
                                      start[1])))
                  .compose(
                      inserted ->
                          inserted.size() > 0
                              ? Future.<Void>succeededFuture()
                              : Future.failedFuture(alreadyExists(name)));
            });
  }

  /** {version, manifest size} the new branch starts from. */
  private Future<long[]> startingPoint(
      SqlClient db,
      Tenant tenant,
      TableRecord table,
      String fromBranch,
      Origin source,
      Long fromVersion) {
    if (fromVersion == null) {
      return db.preparedQuery(LATEST_VERSION)
          .execute(Tuple.of(tenant.id(), table.id(), fromBranch))
          .compose(
              rows -> {
                if (rows.size() > 0) {
                  Row row = rows.iterator().next();
                  return Future.succeededFuture(
                      new long[] {row.getLong(0), sizeOf(row.getLong(1))});
                }
                if (source.parentVersion() != null) {
                  return Future.succeededFuture(new long[] {source.parentVersion(), 0});
                }
                return Future.failedFuture(
                    new ApiException(
                        ErrorCode.TABLE_VERSION_NOT_FOUND,
                        "branch '" + fromBranch + "' has no versions to branch from"));
              });
    }
    return db.preparedQuery(VERSION_SIZE)
        .execute(Tuple.of(tenant.id(), table.id(), fromBranch, fromVersion))
        .compose(
            rows -> {
              if (rows.size() > 0) {
                return Future.succeededFuture(
                    new long[] {fromVersion, sizeOf(rows.iterator().next().getLong(0))});
              }
              if (source.parentVersion() != null && fromVersion <= source.parentVersion()) {
                return Future.succeededFuture(new long[] {fromVersion, 0});
              }
              return Future.failedFuture(
                  new ApiException(
                      ErrorCode.TABLE_VERSION_NOT_FOUND,
                      "version " + fromVersion + " not found on branch '" + fromBranch + "'"));
            });
  }

  private static long sizeOf(Long manifestSize) {
    return manifestSize == null ? 0 : manifestSize;
  }

  private static ApiException alreadyExists(String name) {
    return new ApiException(
        ErrorCode.TABLE_BRANCH_ALREADY_EXISTS, "branch '" + name + "' already exists");
  }

  /** Branches after {@code after} in name order, at most {@code limit + 1}. */
  public Future<List<Branch>> list(
      SqlClient db, Tenant tenant, TableId tableId, String after, int limit) {
    return catalog
        .findTable(db, tenant, tableId)
        .compose(
            table ->
                db.preparedQuery(LIST_BRANCHES)
                    .execute(
                        Tuple.of(tenant.id(), table.id(), after == null ? "" : after, limit + 1)))
        .map(
            rows -> {
              List<Branch> result = new ArrayList<>(rows.size());
              for (Row row : rows) {
                result.add(
                    new Branch(
                        row.getString("name"),
                        row.getString("parent_branch"),
                        row.getLong("parent_version"),
                        row.getLong("manifest_size"),
                        row.getJsonObject("metadata"),
                        row.getLong("created_at")));
              }
              return result;
            });
  }

  /** Deletes a branch and its version records; {@code tx} must be in a transaction. */
  public Future<Void> delete(SqlClient tx, Tenant tenant, TableId tableId, String name) {
    if (Branches.MAIN.equals(name)) {
      return Future.failedFuture(ApiException.invalidInput("the main branch cannot be deleted"));
    }
    return requireBranch(tx, tenant, tableId, name)
        .compose(
            table -> {
              Tuple key = Tuple.of(tenant.id(), table.id(), name);
              return tx.preparedQuery(DELETE_BRANCH_VERSIONS)
                  .execute(key)
                  .compose(deleted -> tx.preparedQuery(DELETE_BRANCH).execute(key))
                  .mapEmpty();
            });
  }
}
