package dev.lvg.version;

import dev.lvg.catalog.CatalogRepository;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;

/**
 * The version store. A commit is one statement: insert the version row if the slot is free and the
 * version is the branch's latest + 1 (or the branch is empty). When the insert claims nothing, a
 * second read says why: a retry of the stored request, a conflict, or a missing table.
 */
public final class VersionRepository {
  static final String INSERT_VERSION = """
      INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
          manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis)
      SELECT t.tenant_id, t.id, $4::text, $5::bigint, $6::text, $6::text, $7::bigint, $8::text, $9::text,
             $10::jsonb, $11::uuid, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      FROM lance_tables t
      WHERE t.tenant_id = $1 AND t.namespace = $2::text[] AND t.name = $3
        AND $5::bigint = 1 + COALESCE((SELECT max(v.version) FROM table_versions v
                                       WHERE v.tenant_id = t.tenant_id AND v.table_id = t.id
                                         AND v.branch = $4::text), $5::bigint - 1)
      ON CONFLICT DO NOTHING
      RETURNING\s""" + TableVersion.COLUMNS;

  static final String EXPLAIN_REFUSAL = """
      SELECT t.id AS table_id, v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag,
             v.metadata, v.transaction_id, v.timestamp_millis,
             (SELECT max(m.version) FROM table_versions m
              WHERE m.tenant_id = t.tenant_id AND m.table_id = t.id AND m.branch = $4) AS latest
      FROM lance_tables t
      LEFT JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
                                 AND v.branch = $4 AND v.version = $5
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3""";

  static final String LIST_ASCENDING = """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND v.branch = $4 AND v.version > $5
      ORDER BY v.version LIMIT $6""".formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  static final String LIST_DESCENDING = """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND v.branch = $4 AND v.version < $5
      ORDER BY v.version DESC LIMIT $6""".formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  static final String DESCRIBE = """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND v.branch = $4 AND v.version = $5"""
      .formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  private final Pool pool;
  private final CatalogRepository catalog;

  public VersionRepository(Pool pool, CatalogRepository catalog) {
    this.pool = pool;
    this.catalog = catalog;
  }

  /** Outcome of a commit: the stored row, and whether this request created it or replayed it. */
  public record Commit(TableVersion version, boolean created) {}

  public Future<Commit> create(Tenant tenant, List<String> tableId, NewVersion request) {
    CatalogRepository.requireTableId(tableId);
    if (!NewVersion.MAIN_BRANCH.equals(request.branch())) {
      return branchNotFound(tenant, tableId, request.branch());
    }
    Tuple params = Tuple.of(tenant.id(), namespace(tableId), CatalogRepository.nameOf(tableId),
        request.branch(), request.version(), request.manifestPath())
        .addLong(request.manifestSize())
        .addString(request.eTag())
        .addString(request.namingScheme())
        .addValue(request.metadata() == null ? null : new JsonObject(new LinkedHashMap<>(request.metadata())))
        .addUUID(UUID.randomUUID());
    return pool.preparedQuery(INSERT_VERSION).execute(params)
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(new Commit(TableVersion.from(rows.iterator().next()), true))
            : explainRefusal(tenant, tableId, request, null))
        .recover(error -> outcomeUnknown(error)
            ? explainRefusal(tenant, tableId, request, error)
            : Future.failedFuture(error));
  }

  /**
   * A statement that failed without an answer from PostgreSQL (a broken connection) may still have
   * committed, so the row is read back before anything is said to the client.
   */
  private static boolean outcomeUnknown(Throwable error) {
    return !(error instanceof ApiException) && !(error instanceof PgException)
        && !(error instanceof io.vertx.core.http.ConnectionPoolTooBusyException);
  }

  private Future<Commit> explainRefusal(
      Tenant tenant, List<String> tableId, NewVersion request, Throwable insertError) {
    Tuple params = Tuple.of(tenant.id(), namespace(tableId), CatalogRepository.nameOf(tableId),
        request.branch(), request.version());
    return pool.preparedQuery(EXPLAIN_REFUSAL).execute(params).compose(rows -> {
      if (rows.size() == 0) {
        return catalog.tableNotFound(tenant, tableId);
      }
      Row row = rows.iterator().next();
      if (row.getValue("version") != null) {
        TableVersion stored = TableVersion.from(row);
        if (stored.sameRequest(request.manifestPath())) {
          return Future.succeededFuture(new Commit(stored, false));
        }
        return Future.failedFuture(new ApiException(ErrorCode.CONCURRENT_MODIFICATION,
            "version " + request.version() + " already exists with another manifest"));
      }
      Long latest = row.getLong("latest");
      if (latest != null && request.version() != latest + 1) {
        return Future.failedFuture(new ApiException(ErrorCode.CONCURRENT_MODIFICATION,
            "version " + request.version() + " is not the next version; the latest is " + latest));
      }
      if (insertError != null) {
        return Future.failedFuture(insertError);
      }
      return Future.failedFuture(new ApiException(ErrorCode.CONCURRENT_MODIFICATION,
          "version " + request.version() + " was modified concurrently; retry"));
    });
  }

  /** Up to {@code limit} versions after the cursor; the cursor is exclusive. */
  public Future<List<TableVersion>> list(
      Tenant tenant, List<String> tableId, String branch, boolean descending, Long after, int limit) {
    CatalogRepository.requireTableId(tableId);
    if (!NewVersion.MAIN_BRANCH.equals(branch)) {
      return branchNotFound(tenant, tableId, branch);
    }
    long cursor = after != null ? after : descending ? Long.MAX_VALUE : -1L;
    Tuple params = Tuple.of(tenant.id(), namespace(tableId), CatalogRepository.nameOf(tableId), branch,
        cursor, limit);
    return pool.preparedQuery(descending ? LIST_DESCENDING : LIST_ASCENDING).execute(params)
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(versions(rows))
            : catalog.findTable(tenant, tableId).map(table -> List.<TableVersion>of()));
  }

  /** One version, or the latest when {@code version} is null. */
  public Future<TableVersion> describe(Tenant tenant, List<String> tableId, String branch, Long version) {
    if (version == null) {
      return list(tenant, tableId, branch, true, null, 1).compose(latest -> latest.isEmpty()
          ? Future.failedFuture(new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "the table has no versions"))
          : Future.succeededFuture(latest.get(0)));
    }
    CatalogRepository.requireTableId(tableId);
    if (!NewVersion.MAIN_BRANCH.equals(branch)) {
      return branchNotFound(tenant, tableId, branch);
    }
    Tuple params = Tuple.of(tenant.id(), namespace(tableId), CatalogRepository.nameOf(tableId), branch, version);
    return pool.preparedQuery(DESCRIBE).execute(params).compose(rows -> rows.size() > 0
        ? Future.succeededFuture(TableVersion.from(rows.iterator().next()))
        : catalog.findTable(tenant, tableId).compose(table -> Future.failedFuture(
            new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "version " + version + " not found"))));
  }

  /** Only the main branch exists until branches can be created. */
  private <T> Future<T> branchNotFound(Tenant tenant, List<String> tableId, String branch) {
    return catalog.findTable(tenant, tableId).compose(table -> Future.failedFuture(
        new ApiException(ErrorCode.TABLE_BRANCH_NOT_FOUND, "branch '" + branch + "' not found")));
  }

  private static List<TableVersion> versions(RowSet<Row> rows) {
    List<TableVersion> result = new ArrayList<>(rows.size());
    for (Row row : rows) {
      result.add(TableVersion.from(row));
    }
    return result;
  }

  private static String[] namespace(List<String> tableId) {
    return CatalogRepository.namespaceOf(tableId).toArray(String[]::new);
  }
}
