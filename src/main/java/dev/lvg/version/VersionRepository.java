package dev.lvg.version;

import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.TableId;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.UUID;

/**
 * The SQL of the version store, one method per statement. A commit is one statement for any number
 * of requests: each row is inserted only if its slot is free, its table and branch exist and its
 * version is the branch's latest + 1 (for a new branch, its parent version + 1; for an empty main
 * branch, any number).
 */
public final class VersionRepository {
  /**
   * Everything that explains an insert that claimed nothing: the branch, the slot, the latest, the
   * version holding the request's Lance transaction.
   */
  static final String INSPECT_SLOT =
      """
      SELECT t.location, b.name IS NOT NULL AS branch_exists, b.parent_version,
             v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag,
             v.metadata, v.transaction_id, v.timestamp_millis, v.lance_transaction,
             (SELECT max(m.version) FROM table_versions m
              WHERE m.tenant_id = $1 AND m.table_id = t.id AND m.branch = $4) AS latest,
             (SELECT x.version FROM table_versions x
              WHERE x.tenant_id = $1 AND x.lance_transaction = $6 AND x.table_id = t.id
                AND x.branch = $4) AS transaction_version
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = $1 AND b.table_id = t.id AND b.name = $4
      LEFT JOIN table_versions v ON v.tenant_id = $1 AND v.table_id = t.id
                                 AND v.branch = $4 AND v.version = $5
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL""";

  /** Deletes the versions in any of the ranges [start, end); end -1 reaches through the latest. */
  static final String DELETE_RANGES =
      """
      DELETE FROM table_versions v USING unnest($4::bigint[], $5::bigint[]) AS r(start_version, end_version)
      WHERE v.tenant_id = $1 AND v.table_id = $2 AND v.branch = $3
        AND v.version >= r.start_version AND (r.end_version = -1 OR v.version < r.end_version)""";

  /** A row a statement inserted, with its key and (when asked for) its table's location. */
  record Inserted(
      String rowAddress,
      long tenantId,
      long tableId,
      String branch,
      String location,
      TableVersion row) {}

  private final CatalogRepository catalog;
  private final BranchRepository branches;
  private final VersionStatements statements;
  private final VersionReads reads;

  /**
   * {@code distributed}: the database is Citus, where a statement reaches one tenant's rows only;
   * every batch then holds the versions of one tenant.
   */
  public VersionRepository(
      CatalogRepository catalog, BranchRepository branches, boolean distributed) {
    this.catalog = catalog;
    this.branches = branches;
    this.statements = VersionStatements.of(distributed);
    this.reads = new VersionReads(branches);
  }

  /** The reads of the version store. */
  VersionReads reads() {
    return reads;
  }

  /**
   * Record mode: inserts what it can of {@code requests} (see {@link VersionStatements}) and
   * records each inserted row in the audit trail, in one statement.
   */
  Future<List<Inserted>> insertAndRecord(SqlClient db, List<NewVersion> requests) {
    return insert(
        db,
        statements.insertAndRecord(),
        VersionAudit.addActors(columns(requests), requests),
        false);
  }

  /**
   * Finalize mode, in the batch's transaction: inserts what it can of {@code requests}, which holds
   * their slots, and returns each table's location for its final manifest; the batch records the
   * audit events of the versions it keeps ({@link VersionAudit#record}) in the same transaction.
   */
  Future<List<Inserted>> insertToFinalize(SqlClient tx, List<NewVersion> requests) {
    return insert(tx, statements.insertReturningLocation(), columns(requests), true);
  }

  /** The requests as the insert statements' array parameters, their tenants first. */
  private Tuple columns(List<NewVersion> requests) {
    int n = requests.size();
    Long[] tenants = new Long[n];
    String[] namespaces = new String[n];
    String[] names = new String[n];
    String[] branchNames = new String[n];
    Long[] versions = new Long[n];
    String[] paths = new String[n];
    Long[] sizes = new Long[n];
    String[] eTags = new String[n];
    String[] schemes = new String[n];
    String[] metadata = new String[n];
    UUID[] transactions = new UUID[n];
    UUID[] lanceTransactions = new UUID[n];
    for (int i = 0; i < n; i++) {
      NewVersion request = requests.get(i);
      tenants[i] = request.tenant().id();
      namespaces[i] = String.join("/", request.tableId().namespace().names());
      names[i] = request.tableId().name();
      branchNames[i] = request.branch();
      versions[i] = request.version();
      paths[i] = request.manifestPath();
      sizes[i] = request.manifestSize();
      eTags[i] = request.eTag();
      schemes[i] = request.namingScheme();
      metadata[i] =
          request.metadata() == null
              ? null
              : new JsonObject(new LinkedHashMap<>(request.metadata())).encode();
      transactions[i] = request.transactionId();
      lanceTransactions[i] = request.lanceTransaction();
    }
    return statements
        .tenants(Tuple.tuple(), tenants)
        .addArrayOfString(namespaces)
        .addArrayOfString(names)
        .addArrayOfString(branchNames)
        .addArrayOfLong(versions)
        .addArrayOfString(paths)
        .addArrayOfLong(sizes)
        .addArrayOfString(eTags)
        .addArrayOfString(schemes)
        .addArrayOfString(metadata)
        .addArrayOfUUID(transactions)
        .addArrayOfUUID(lanceTransactions);
  }

  private static Future<List<Inserted>> insert(
      SqlClient db, String statement, Tuple params, boolean returnsLocation) {
    return db.preparedQuery(statement)
        .execute(params)
        .map(
            rows -> {
              List<Inserted> inserted = new ArrayList<>(rows.size());
              for (Row row : rows) {
                inserted.add(
                    new Inserted(
                        row.getString("row_address"),
                        row.getLong("tenant_id"),
                        row.getLong("table_id"),
                        row.getString("branch"),
                        returnsLocation ? row.getString("location") : null,
                        TableVersion.from(row)));
              }
              return inserted;
            });
  }

  /** A final manifest to record for a row inserted earlier in the same transaction. */
  record FinalManifest(Inserted inserted, String path, long size, String eTag) {}

  /**
   * Records final manifests of rows this transaction inserted; returns the rows as they are now.
   */
  Future<List<TableVersion>> setFinalManifests(SqlClient tx, List<FinalManifest> manifests) {
    return tx.preparedQuery(statements.setFinalManifests())
        .execute(statements.finalManifests(manifests))
        .map(VersionReads::versions);
  }

  /** Removes rows this transaction inserted, whose finalization failed. */
  Future<Void> deleteInserted(SqlClient tx, List<Inserted> rows) {
    return tx.preparedQuery(statements.deleteInserted())
        .execute(statements.inserted(rows))
        .mapEmpty();
  }

  /**
   * Reads what explains an insert that claimed nothing; 404 code 1 or 4 when the table is missing.
   */
  Future<Slot> inspectSlot(SqlClient db, NewVersion request) {
    Tuple params =
        tableKey(request.tenant(), request.tableId())
            .addString(request.branch())
            .addLong(request.version())
            .addUUID(request.lanceTransaction());
    return db.preparedQuery(INSPECT_SLOT)
        .execute(params)
        .compose(
            rows -> {
              if (rows.size() == 0) {
                return catalog.tableNotFound(db, request.tenant(), request.tableId());
              }
              Row row = rows.iterator().next();
              Long latest =
                  row.getLong("latest") != null
                      ? row.getLong("latest")
                      : row.getLong("parent_version");
              return Future.succeededFuture(
                  new Slot(
                      row.getString("location"),
                      row.getBoolean("branch_exists"),
                      row.getValue("version") != null ? TableVersion.from(row) : null,
                      latest,
                      row.getLong("transaction_version")));
            });
  }

  /** Deletes version records in the ranges, atomically (one statement); returns how many went. */
  public Future<Integer> deleteRanges(
      SqlClient db, Tenant tenant, TableId tableId, String branch, List<VersionRange> ranges) {
    Long[] starts = ranges.stream().map(VersionRange::start).toArray(Long[]::new);
    Long[] ends = ranges.stream().map(VersionRange::end).toArray(Long[]::new);
    return branches
        .requireBranch(db, tenant, tableId, branch)
        .compose(
            (TableRecord table) ->
                db.preparedQuery(DELETE_RANGES)
                    .execute(
                        Tuple.of(tenant.id(), table.id(), branch)
                            .addArrayOfLong(starts)
                            .addArrayOfLong(ends))
                    .map(RowSet::rowCount));
  }

  static Tuple tableKey(Tenant tenant, TableId tableId) {
    return Tuple.tuple()
        .addLong(tenant.id())
        .addArrayOfString(tableId.namespace().array())
        .addString(tableId.name());
  }
}
