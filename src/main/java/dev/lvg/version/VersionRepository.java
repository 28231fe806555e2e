package dev.lvg.version;

import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;

/**
 * The version store. A commit is one statement: insert the version row if the slot is free, the
 * branch exists and the version is the branch's latest + 1 (for a new branch, its parent version
 * + 1; for an empty main branch, any number). When the insert claims nothing, a second read says
 * why: a retry of the stored request, a conflict, or a missing table or branch.
 */
public final class VersionRepository {
  static final String INSERT_VERSION = """
      INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
          manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis)
      SELECT t.tenant_id, t.id, $4::text, $5::bigint, $6::text, $6::text, $7::bigint, $8::text, $9::text,
             $10::jsonb, $11::uuid, (extract(epoch FROM clock_timestamp()) * 1000)::bigint
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = t.tenant_id AND b.table_id = t.id AND b.name = $4::text
      WHERE t.tenant_id = $1 AND t.namespace = $2::text[] AND t.name = $3 AND t.deregistered_at IS NULL
        AND ($4::text = 'main' OR b.name IS NOT NULL)
        AND $5::bigint = 1 + COALESCE((SELECT max(v.version) FROM table_versions v
                                       WHERE v.tenant_id = t.tenant_id AND v.table_id = t.id
                                         AND v.branch = $4::text),
                                      b.parent_version, $5::bigint - 1)
      ON CONFLICT DO NOTHING
      RETURNING\s""" + TableVersion.COLUMNS;

  static final String EXPLAIN_REFUSAL = """
      SELECT t.id AS table_id, b.name IS NOT NULL AS branch_exists, b.parent_version,
             v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag,
             v.metadata, v.transaction_id, v.timestamp_millis,
             (SELECT max(m.version) FROM table_versions m
              WHERE m.tenant_id = t.tenant_id AND m.table_id = t.id AND m.branch = $4) AS latest
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = t.tenant_id AND b.table_id = t.id AND b.name = $4
      LEFT JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
                                 AND v.branch = $4 AND v.version = $5
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL""";

  private static final String VERSIONS_OF_LIVE_TABLE = """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.branch = $4 AND\s""".formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  static final String LIST_ASCENDING = VERSIONS_OF_LIVE_TABLE + "v.version > $5 ORDER BY v.version LIMIT $6";
  static final String LIST_DESCENDING = VERSIONS_OF_LIVE_TABLE + "v.version < $5 ORDER BY v.version DESC LIMIT $6";
  static final String DESCRIBE = VERSIONS_OF_LIVE_TABLE + "v.version = $5";

  /** Deletes the versions in any of the ranges [start, end); end -1 reaches through the latest. */
  static final String DELETE_RANGES = """
      DELETE FROM table_versions v USING unnest($4::bigint[], $5::bigint[]) AS r(start_version, end_version)
      WHERE v.tenant_id = $1 AND v.table_id = $2 AND v.branch = $3
        AND v.version >= r.start_version AND (r.end_version = -1 OR v.version < r.end_version)""";

  private final CatalogRepository catalog;
  private final BranchRepository branches;

  public VersionRepository(CatalogRepository catalog, BranchRepository branches) {
    this.catalog = catalog;
    this.branches = branches;
  }

  /** Outcome of a commit: the stored row, and whether this request created it or replayed it. */
  public record Commit(TableVersion version, boolean created) {}

  public Future<Commit> create(SqlClient db, Tenant tenant, List<String> tableId, NewVersion request) {
    CatalogRepository.requireTableId(tableId);
    Tuple params = tableKey(tenant, tableId)
        .addString(request.branch())
        .addLong(request.version())
        .addString(request.manifestPath())
        .addLong(request.manifestSize())
        .addString(request.eTag())
        .addString(request.namingScheme())
        .addValue(request.metadata() == null ? null : new JsonObject(new LinkedHashMap<>(request.metadata())))
        .addUUID(UUID.randomUUID());
    return db.preparedQuery(INSERT_VERSION).execute(params)
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(new Commit(TableVersion.from(rows.iterator().next()), true))
            : explainRefusal(db, tenant, tableId, request, null))
        .recover(error -> outcomeUnknown(error)
            ? explainRefusal(db, tenant, tableId, request, error)
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
      SqlClient db, Tenant tenant, List<String> tableId, NewVersion request, Throwable insertError) {
    Tuple params = tableKey(tenant, tableId).addString(request.branch()).addLong(request.version());
    return db.preparedQuery(EXPLAIN_REFUSAL).execute(params).compose(rows -> {
      if (rows.size() == 0) {
        return catalog.tableNotFound(db, tenant, tableId);
      }
      Row row = rows.iterator().next();
      if (!NewVersion.MAIN_BRANCH.equals(request.branch()) && !row.getBoolean("branch_exists")) {
        return Future.failedFuture(BranchRepository.branchNotFound(request.branch()));
      }
      if (row.getValue("version") != null) {
        TableVersion stored = TableVersion.from(row);
        if (stored.sameRequest(request.manifestPath())) {
          return Future.succeededFuture(new Commit(stored, false));
        }
        return Future.failedFuture(new ApiException(ErrorCode.CONCURRENT_MODIFICATION,
            "version " + request.version() + " already exists with another manifest"));
      }
      Long latest = row.getLong("latest") != null ? row.getLong("latest") : row.getLong("parent_version");
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

  /** Up to {@code limit} versions of a branch after the cursor; the cursor is exclusive. */
  public Future<List<TableVersion>> list(SqlClient db,
      Tenant tenant, List<String> tableId, String branch, boolean descending, Long after, int limit) {
    CatalogRepository.requireTableId(tableId);
    long cursor = after != null ? after : descending ? Long.MAX_VALUE : -1L;
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(cursor).addInteger(limit);
    return db.preparedQuery(descending ? LIST_DESCENDING : LIST_ASCENDING).execute(params)
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(versions(rows))
            : branches.requireBranch(db, tenant, tableId, branch).map(table -> List.<TableVersion>of()));
  }

  /** One version of a branch, or its latest when {@code version} is null. */
  public Future<TableVersion> describe(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, Long version) {
    if (version == null) {
      return list(db, tenant, tableId, branch, true, null, 1).compose(latest -> latest.isEmpty()
          ? Future.failedFuture(new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "the table has no versions"))
          : Future.succeededFuture(latest.get(0)));
    }
    CatalogRepository.requireTableId(tableId);
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(version);
    return db.preparedQuery(DESCRIBE).execute(params).compose(rows -> rows.size() > 0
        ? Future.succeededFuture(TableVersion.from(rows.iterator().next()))
        : branches.requireBranch(db, tenant, tableId, branch).compose(table -> Future.failedFuture(
            new ApiException(ErrorCode.TABLE_VERSION_NOT_FOUND, "version " + version + " not found"))));
  }

  /** Deletes version records in the ranges, atomically (one statement); returns how many went. */
  public Future<Integer> delete(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, List<VersionRange> ranges) {
    Long[] starts = ranges.stream().map(VersionRange::start).toArray(Long[]::new);
    Long[] ends = ranges.stream().map(VersionRange::end).toArray(Long[]::new);
    return branches.requireBranch(db, tenant, tableId, branch).compose((TableRecord table) ->
        db.preparedQuery(DELETE_RANGES)
            .execute(Tuple.of(tenant.id(), table.id(), branch).addArrayOfLong(starts).addArrayOfLong(ends))
            .map(RowSet::rowCount));
  }

  /** A range of versions, start inclusive, end exclusive; end -1 reaches through the latest. */
  public record VersionRange(long start, long end) {
    public VersionRange {
      if (start < 0) {
        throw ApiException.invalidInput("'start_version' must be >= 0, got " + start);
      }
      if (end != -1 && end < start) {
        throw ApiException.invalidInput("'end_version' must be -1 or >= 'start_version', got " + end);
      }
    }
  }

  private static List<TableVersion> versions(RowSet<Row> rows) {
    List<TableVersion> result = new ArrayList<>(rows.size());
    for (Row row : rows) {
      result.add(TableVersion.from(row));
    }
    return result;
  }

  private static Tuple tableKey(Tenant tenant, List<String> tableId) {
    return Tuple.tuple()
        .addLong(tenant.id())
        .addArrayOfString(CatalogRepository.namespaceOf(tableId).toArray(String[]::new))
        .addString(CatalogRepository.nameOf(tableId));
  }
}
