package dev.lvg.version;

import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
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
   * Inserts the requests given as parallel arrays, in request order (so concurrent statements lock
   * slots in one order and cannot deadlock), and returns the rows it inserted. Lookups are lateral
   * subqueries the planner cannot flatten ({@code LIMIT 1} on a unique key), so each request costs
   * index probes whatever the statistics say about table sizes. Namespaces travel as their parts
   * joined by {@code /}, which no name contains. The first row of a chain is marked, so that of
   * concurrent first versions with different numbers only one lands.
   */
  private static final String INSERT_CORE =
      """
      INSERT INTO table_versions (tenant_id, table_id, branch, version, manifest_path, requested_path,
          manifest_size, e_tag, naming_scheme, metadata, transaction_id, timestamp_millis, starts_chain)
      SELECT t.tenant_id, t.id, r.branch, r.version, r.path, r.path, r.size, r.e_tag, r.scheme,
             r.metadata::jsonb, r.txid, (extract(epoch FROM statement_timestamp()) * 1000)::bigint,
             CASE WHEN m.latest IS NULL THEN true END
      FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[],
                  $7::bigint[], $8::text[], $9::text[], $10::text[], $11::uuid[])
           WITH ORDINALITY AS r(tenant_id, namespace, name, branch, version, path, size, e_tag, scheme,
                                metadata, txid, ord)
      CROSS JOIN LATERAL (SELECT t.tenant_id, t.id FROM lance_tables t
                          WHERE t.tenant_id = r.tenant_id AND t.namespace = string_to_array(r.namespace, '/')
                            AND t.name = r.name AND t.deregistered_at IS NULL LIMIT 1) t
      LEFT JOIN LATERAL (SELECT b.name, b.parent_version FROM table_branches b
                         WHERE b.tenant_id = r.tenant_id AND b.table_id = t.id AND b.name = r.branch
                         LIMIT 1) b ON true
      CROSS JOIN LATERAL (SELECT max(v.version) AS latest FROM table_versions v
                          WHERE v.tenant_id = r.tenant_id AND v.table_id = t.id
                            AND v.branch = r.branch) m
      WHERE (r.branch = 'main' OR b.name IS NOT NULL)
        AND r.version = 1 + COALESCE(m.latest, b.parent_version, r.version - 1)
      ORDER BY r.ord
      ON CONFLICT DO NOTHING
      RETURNING ctid::text AS row_address, tenant_id, table_id, branch,\s"""
          + TableVersion.COLUMNS;

  /** {@link #INSERT_CORE}, each inserted row recorded in the audit trail by the same statement. */
  static final String INSERT_VERSIONS = VersionAudit.recording(INSERT_CORE);

  /**
   * {@link #INSERT_CORE}, returning each row with its table's location too; the caller records the
   * rows it keeps ({@link VersionAudit#record}).
   */
  static final String INSERT_VERSIONS_WITH_LOCATION =
      "WITH inserted AS ("
          + INSERT_CORE
          + """
          )
          SELECT i.*, t.location FROM inserted i
          JOIN lance_tables t ON t.tenant_id = i.tenant_id AND t.id = i.table_id""";

  /** Everything that explains an insert that claimed nothing: the branch, the slot, the latest. */
  static final String INSPECT_SLOT =
      """
      SELECT t.location, b.name IS NOT NULL AS branch_exists, b.parent_version,
             v.version, v.manifest_path, v.requested_path, v.manifest_size, v.e_tag,
             v.metadata, v.transaction_id, v.timestamp_millis,
             (SELECT max(m.version) FROM table_versions m
              WHERE m.tenant_id = $1 AND m.table_id = t.id AND m.branch = $4) AS latest
      FROM lance_tables t
      LEFT JOIN table_branches b ON b.tenant_id = $1 AND b.table_id = t.id AND b.name = $4
      LEFT JOIN table_versions v ON v.tenant_id = $1 AND v.table_id = t.id
                                 AND v.branch = $4 AND v.version = $5
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL""";

  /**
   * Sets the final manifest of rows inserted earlier in the same transaction, found by their row
   * address ({@code ctid}, stable while the transaction holds them): a TID scan, whatever the
   * statistics say.
   */
  static final String SET_FINAL_MANIFESTS =
      """
      UPDATE table_versions v SET manifest_path = r.path, manifest_size = r.size, e_tag = r.e_tag
      FROM unnest($1::text[]::tid[], $2::text[], $3::bigint[], $4::text[]) AS r(id, path, size, e_tag)
      WHERE v.ctid = r.id
      RETURNING v.\s"""
          + TableVersion.COLUMNS.replace(", ", ", v.");

  /** Removes rows inserted earlier in the same transaction whose finalization failed. */
  static final String DELETE_INSERTED =
      "DELETE FROM table_versions WHERE ctid = ANY($1::text[]::tid[])";

  private static final String VERSIONS_OF_LIVE_TABLE =
      """
      SELECT v.%s FROM lance_tables t JOIN table_versions v ON v.tenant_id = t.tenant_id AND v.table_id = t.id
      WHERE t.tenant_id = $1 AND t.namespace = $2 AND t.name = $3 AND t.deregistered_at IS NULL
        AND v.tenant_id = $1 AND v.branch = $4 AND\s"""
          .formatted(TableVersion.COLUMNS.replace(", ", ", v."));

  static final String LIST_ASCENDING =
      VERSIONS_OF_LIVE_TABLE + "v.version > $5 ORDER BY v.version LIMIT $6";
  static final String LIST_DESCENDING =
      VERSIONS_OF_LIVE_TABLE + "v.version < $5 ORDER BY v.version DESC LIMIT $6";
  static final String DESCRIBE = VERSIONS_OF_LIVE_TABLE + "v.version = $5";

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

  public VersionRepository(CatalogRepository catalog, BranchRepository branches) {
    this.catalog = catalog;
    this.branches = branches;
  }

  /**
   * Inserts what it can of {@code requests} (see {@link #INSERT_CORE}); without {@code
   * withLocation}, the inserted rows are recorded in the audit trail too.
   */
  Future<List<Inserted>> insertVersions(
      SqlClient db, List<NewVersion> requests, boolean withLocation) {
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
    for (int i = 0; i < n; i++) {
      NewVersion request = requests.get(i);
      tenants[i] = request.tenant().id();
      namespaces[i] = String.join("/", request.namespace());
      names[i] = request.tableName();
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
    }
    Tuple params =
        Tuple.tuple()
            .addArrayOfLong(tenants)
            .addArrayOfString(namespaces)
            .addArrayOfString(names)
            .addArrayOfString(branchNames)
            .addArrayOfLong(versions)
            .addArrayOfString(paths)
            .addArrayOfLong(sizes)
            .addArrayOfString(eTags)
            .addArrayOfString(schemes)
            .addArrayOfString(metadata)
            .addArrayOfUUID(transactions);
    return db.preparedQuery(withLocation ? INSERT_VERSIONS_WITH_LOCATION : INSERT_VERSIONS)
        .execute(withLocation ? params : VersionAudit.addActors(params, requests))
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
                        withLocation ? row.getString("location") : null,
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
    Tuple params =
        Tuple.tuple()
            .addArrayOfString(
                manifests.stream().map(m -> m.inserted().rowAddress()).toArray(String[]::new))
            .addArrayOfString(manifests.stream().map(FinalManifest::path).toArray(String[]::new))
            .addArrayOfLong(manifests.stream().map(FinalManifest::size).toArray(Long[]::new))
            .addArrayOfString(manifests.stream().map(FinalManifest::eTag).toArray(String[]::new));
    return tx.preparedQuery(SET_FINAL_MANIFESTS).execute(params).map(VersionRepository::versions);
  }

  /** Removes rows this transaction inserted, whose finalization failed. */
  Future<Void> deleteInserted(SqlClient tx, List<Inserted> rows) {
    String[] addresses = rows.stream().map(Inserted::rowAddress).toArray(String[]::new);
    return tx.preparedQuery(DELETE_INSERTED).execute(Tuple.of(addresses)).mapEmpty();
  }

  /**
   * Reads what explains an insert that claimed nothing; 404 code 1 or 4 when the table is missing.
   */
  Future<Slot> inspectSlot(SqlClient db, NewVersion request) {
    Tuple params =
        tableKey(request.tenant(), request.tableId())
            .addString(request.branch())
            .addLong(request.version());
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
                      latest));
            });
  }

  /** Up to {@code limit} versions of a branch after the cursor; the cursor is exclusive. */
  public Future<List<TableVersion>> list(
      SqlClient db,
      Tenant tenant,
      List<String> tableId,
      String branch,
      boolean descending,
      Long after,
      int limit) {
    CatalogRepository.requireTableId(tableId);
    long cursor = after != null ? after : descending ? Long.MAX_VALUE : -1L;
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(cursor).addInteger(limit);
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
      SqlClient db, Tenant tenant, List<String> tableId, String branch, Long version) {
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
    CatalogRepository.requireTableId(tableId);
    Tuple params = tableKey(tenant, tableId).addString(branch).addLong(version);
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

  /** Deletes version records in the ranges, atomically (one statement); returns how many went. */
  public Future<Integer> deleteRanges(
      SqlClient db, Tenant tenant, List<String> tableId, String branch, List<VersionRange> ranges) {
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
