package dev.lvg.version;

import dev.lvg.catalog.BranchRepository;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.TableId;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/** The reads of the version store: pages of a branch's versions, and one version. */
@Exported
public final class VersionReads {
  /** A page of branch $4's versions after $5, ascending, at most $6. */
  static final String LIST_ASCENDING =
      """
      SELECT v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
             v.transaction_id, v.timestamp_millis, v.lance_transaction
      FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.branch = $4 AND v.version > $5
      ORDER BY v.version LIMIT $6""";

  /** A page of branch $4's versions before $5, descending, at most $6. */
  static final String LIST_DESCENDING =
      """
      SELECT v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
             v.transaction_id, v.timestamp_millis, v.lance_transaction
      FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.branch = $4 AND v.version < $5
      ORDER BY v.version DESC LIMIT $6""";

  /** Version $5 of branch $4. */
  static final String DESCRIBE =
      """
      SELECT v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
             v.transaction_id, v.timestamp_millis, v.lance_transaction
      FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.branch = $4 AND v.version = $5""";

  private final BranchRepository branches;

  VersionReads(BranchRepository branches) {
    this.branches = branches;
  }

  /** Up to {@code limit} versions of a branch after the cursor; the cursor is exclusive. */
  public Future<List<TableVersion>> list(
      SqlClient db,
      Tenant tenant,
      TableId tableId,
      String branch,
      boolean descending,
      Long after,
      int limit) {
    long cursor = after != null ? after : descending ? Long.MAX_VALUE : -1L;
    Tuple params =
        VersionRepository.tableKey(tenant, tableId)
            .addString(branch)
            .addLong(cursor)
            .addInteger(limit);
    return db.preparedQuery(descending ? LIST_DESCENDING : LIST_ASCENDING)
        .execute(params)
        .compose(
            rows ->
                rows.size() > 0
                    ? Future.succeededFuture(versions(rows))
                    : branches
                        .requireBranch(db, tenant, tableId, branch)
                        .map(table -> List.<TableVersion>of()));
  }

  /** One version of a branch, or its latest when {@code version} is null. */
  public Future<TableVersion> describe(
      SqlClient db, Tenant tenant, TableId tableId, String branch, Long version) {
    if (version == null) {
      return list(db, tenant, tableId, branch, true, null, 1)
          .compose(
              latest ->
                  latest.isEmpty()
                      ? Future.failedFuture(
                          new ApiException(
                              ErrorCode.TABLE_VERSION_NOT_FOUND, "the table has no versions"))
                      : Future.succeededFuture(latest.get(0)));
    }
    Tuple params = VersionRepository.tableKey(tenant, tableId).addString(branch).addLong(version);
    return db.preparedQuery(DESCRIBE)
        .execute(params)
        .compose(
            rows ->
                rows.size() > 0
                    ? Future.succeededFuture(TableVersion.from(rows.iterator().next()))
                    : branches
                        .requireBranch(db, tenant, tableId, branch)
                        .compose(
                            table ->
                                Future.failedFuture(
                                    new ApiException(
                                        ErrorCode.TABLE_VERSION_NOT_FOUND,
                                        "version " + version + " not found"))));
  }

  static List<TableVersion> versions(RowSet<Row> rows) {
    List<TableVersion> result = new ArrayList<>(rows.size());
    for (Row row : rows) {
      result.add(TableVersion.from(row));
    }
    return result;
  }
}
