package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.TableId;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Access;
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
import java.util.Map;

/**
 * Tables of a tenant in PostgreSQL. Every statement is keyed by the tenant. Methods take the client
 * to run on, so the same operation serves alone (the pool) or inside a batch (one transaction's
 * connection).
 */
@Exported
public final class CatalogRepository {
  private static final String UNIQUE_VIOLATION = "23505";

  private final NamespaceRepository namespaces;

  public CatalogRepository(NamespaceRepository namespaces) {
    this.namespaces = namespaces;
  }

  public NamespaceRepository namespaces() {
    return namespaces;
  }

  static final String FIND_TABLE =
      """
      SELECT id, location, properties FROM lance_tables
      WHERE tenant_id = $1 AND namespace = $2 AND name = $3 AND deregistered_at IS NULL""";
  static final String INSERT_TABLE =
      """
      INSERT INTO lance_tables (tenant_id, namespace, name, location, properties)
      SELECT $1, $2, $3, $4, $5
      WHERE cardinality($2::text[]) = 0
         OR EXISTS (SELECT 1 FROM namespaces WHERE tenant_id = $1 AND path = $2)
      ON CONFLICT DO NOTHING RETURNING id, location, properties""";
  static final String DEREGISTER_TABLE =
      """
      UPDATE lance_tables SET deregistered_at = now()
      WHERE tenant_id = $1 AND namespace = $2 AND name = $3 AND deregistered_at IS NULL
      RETURNING id, location, properties""";

  /** Takes the table out of the catalog and queues the deletion of its data, in one statement. */
  static final String DROP_TABLE =
      """
      WITH dropped AS (
        UPDATE lance_tables SET deregistered_at = now(), dropped_at = now()
        WHERE tenant_id = $1 AND namespace = $2 AND name = $3 AND deregistered_at IS NULL
        RETURNING tenant_id, id, location, properties),
      queued AS (
        INSERT INTO table_drops (tenant_id, table_id, location)
        SELECT tenant_id, id, location FROM dropped)
      SELECT id, location, properties FROM dropped""";

  /** Renames a live table into an existing namespace; its id, location and versions stay. */
  static final String RENAME_TABLE =
      """
      UPDATE lance_tables SET namespace = $4, name = $5
      WHERE tenant_id = $1 AND namespace = $2 AND name = $3 AND deregistered_at IS NULL
        AND (cardinality($4::text[]) = 0
             OR EXISTS (SELECT 1 FROM namespaces WHERE tenant_id = $1 AND path = $4))
      RETURNING id, location, properties""";

  /** Whether any table of the tenant, live or not, has ever had this location. */
  static final String LOCATION_TAKEN =
      "SELECT 1 FROM lance_tables WHERE tenant_id = $1 AND location = $2 LIMIT 1";

  static final String LIST_TABLES =
      """
      SELECT name FROM lance_tables
      WHERE tenant_id = $1 AND namespace = $2 AND name > $3 AND deregistered_at IS NULL
        AND ($5::text[] IS NULL
          OR EXISTS (SELECT 1 FROM unnest($5::text[]) s
                     WHERE starts_with(array_to_string(namespace, chr(31)) || chr(31), s))
          OR array_to_string(array_append(namespace, name), chr(31)) || chr(31) = ANY($6::text[]))
      ORDER BY name LIMIT $4""";
  static final String LIST_ALL_TABLES =
      """
      SELECT namespace, name FROM lance_tables
      WHERE tenant_id = $1 AND deregistered_at IS NULL AND (namespace, name) > ($2::text[], $3)
        AND ($5::text[] IS NULL
          OR EXISTS (SELECT 1 FROM unnest($5::text[]) s
                     WHERE starts_with(array_to_string(namespace, chr(31)) || chr(31), s))
          OR array_to_string(array_append(namespace, name), chr(31)) || chr(31) = ANY($6::text[]))
      ORDER BY namespace, name LIMIT $4""";
  static final String VERSION_EXISTS =
      """
      SELECT 1 FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3 AND version = $4""";
  static final String LATEST_VERSION =
      """
      SELECT max(version) FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3""";

  private static Tuple key(Tenant tenant, NamespaceId namespace) {
    return Tuple.tuple().addLong(tenant.id()).addArrayOfString(namespace.array());
  }

  private static Tuple key(Tenant tenant, TableId table) {
    return key(tenant, table.namespace()).addString(table.name());
  }

  private static JsonObject json(Map<String, String> properties) {
    return properties == null ? new JsonObject() : new JsonObject(new LinkedHashMap<>(properties));
  }

  /** Live tables of {@code namespace} after {@code after} that {@code visible} keeps, as names. */
  public Future<List<String>> listTables(
      SqlClient db,
      Tenant tenant,
      NamespaceId namespace,
      Access.Filter visible,
      String after,
      int limit) {
    return namespaces.namesIn(db, tenant, namespace, LIST_TABLES, visible, after, limit);
  }

  /** Every live table of the tenant after {@code after} that {@code visible} keeps (null: all). */
  public Future<List<TableId>> listAllTables(
      SqlClient db, Tenant tenant, Access.Filter visible, TableId after, int limit) {
    return db.preparedQuery(LIST_ALL_TABLES)
        .execute(
            NamespaceRepository.visible(
                key(tenant, after == null ? NamespaceId.ROOT.table("") : after)
                    .addInteger(limit + 1),
                visible,
                true))
        .map(
            rows -> {
              List<TableId> ids = new ArrayList<>(rows.size());
              for (Row row : rows) {
                ids.add(new NamespaceId(List.of(row.getArrayOfStrings(0))).table(row.getString(1)));
              }
              return ids;
            });
  }

  /** Creates the table entry; 404 code 1 when its namespace is missing, 409 code 5 when taken. */
  public Future<TableRecord> createTable(
      SqlClient db,
      Tenant tenant,
      TableId tableId,
      String location,
      Map<String, String> properties) {
    return db.preparedQuery(INSERT_TABLE)
        .execute(key(tenant, tableId).addString(location).addValue(json(properties)))
        .compose(
            rows -> {
              if (rows.size() > 0) {
                return Future.succeededFuture(table(rows.iterator().next()));
              }
              return namespaces
                  .describeNamespace(db, tenant, tableId.namespace())
                  .compose(
                      exists ->
                          Future.failedFuture(
                              new ApiException(
                                  ErrorCode.TABLE_ALREADY_EXISTS,
                                  "table " + tableId + " already exists")));
            });
  }

  /**
   * Replaces a registration: the current table of that name, if any, is deregistered and a new one
   * created. {@code tx} must be a connection inside a transaction.
   */
  public Future<TableRecord> replaceTable(
      SqlClient tx,
      Tenant tenant,
      TableId tableId,
      String location,
      Map<String, String> properties) {
    return tx.preparedQuery(DEREGISTER_TABLE)
        .execute(key(tenant, tableId))
        .compose(old -> createTable(tx, tenant, tableId, location, properties));
  }

  /** Table, failing with 404 code 1 or 4 naming what is missing. */
  public Future<TableRecord> findTable(SqlClient db, Tenant tenant, TableId tableId) {
    return db.preparedQuery(FIND_TABLE)
        .execute(key(tenant, tableId))
        .compose(rows -> firstTableOrNotFound(rows, db, tenant, tableId));
  }

  private Future<TableRecord> firstTableOrNotFound(
      RowSet<Row> rows, SqlClient db, Tenant tenant, TableId tableId) {
    return rows.size() > 0
        ? Future.succeededFuture(table(rows.iterator().next()))
        : tableNotFound(db, tenant, tableId);
  }

  /** Fails with 404 code 1 when the table's namespace is missing, else with 404 code 4. */
  public <T> Future<T> tableNotFound(SqlClient db, Tenant tenant, TableId tableId) {
    return namespaces
        .describeNamespace(db, tenant, tableId.namespace())
        .compose(exists -> Future.failedFuture(ApiException.tableNotFound(tableId)));
  }

  /**
   * Takes the table out of the catalog at once and queues its data for deletion (see {@link
   * TableDrops}); fails with 404 code 1 or 4 when it does not exist.
   */
  public Future<TableRecord> dropTable(SqlClient db, Tenant tenant, TableId tableId) {
    return db.preparedQuery(DROP_TABLE)
        .execute(key(tenant, tableId))
        .compose(rows -> firstTableOrNotFound(rows, db, tenant, tableId));
  }

  /**
   * Gives the table a new id: 404 code 4 (or 1) when it does not exist, 404 code 1 when the new
   * namespace does not, 409 code 5 when the new id is taken.
   */
  public Future<TableRecord> renameTable(
      SqlClient db, Tenant tenant, TableId tableId, TableId newId) {
    return db.preparedQuery(RENAME_TABLE)
        .execute(
            key(tenant, tableId)
                .addArrayOfString(newId.namespace().array())
                .addString(newId.name()))
        .recover(
            error ->
                error instanceof PgException pg && UNIQUE_VIOLATION.equals(pg.getSqlState())
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.TABLE_ALREADY_EXISTS, "table " + newId + " already exists"))
                    : Future.failedFuture(error))
        .compose(
            rows ->
                rows.size() > 0
                    ? Future.succeededFuture(table(rows.iterator().next()))
                    : findTable(db, tenant, tableId)
                        .compose(
                            exists -> namespaces.describeNamespace(db, tenant, newId.namespace()))
                        .compose(
                            exists ->
                                Future.failedFuture(
                                    ApiException.conflict(
                                        "table "
                                            + tableId
                                            + " changed while it was renamed; retry"))));
  }

  /** Whether a table of the tenant, live, deregistered or dropped, has this location. */
  public Future<Boolean> locationTaken(SqlClient db, Tenant tenant, String location) {
    return db.preparedQuery(LOCATION_TAKEN)
        .execute(Tuple.of(tenant.id(), location))
        .map(rows -> rows.size() > 0);
  }

  /** Hides the table and its versions from every operation; the rows stay for an operator. */
  public Future<TableRecord> deregisterTable(SqlClient db, Tenant tenant, TableId tableId) {
    return db.preparedQuery(DEREGISTER_TABLE)
        .execute(key(tenant, tableId))
        .compose(rows -> firstTableOrNotFound(rows, db, tenant, tableId));
  }

  public Future<Long> latestVersion(SqlClient db, Tenant tenant, long tableId, String branch) {
    return db.preparedQuery(LATEST_VERSION)
        .execute(Tuple.of(tenant.id(), tableId, branch))
        .map(rows -> rows.iterator().next().getLong(0));
  }

  /** {@code version} when the branch has it, else a failure with 404 code 11. */
  public Future<Long> requireVersion(
      SqlClient db, Tenant tenant, long tableId, String branch, long version) {
    return db.preparedQuery(VERSION_EXISTS)
        .execute(Tuple.of(tenant.id(), tableId, branch, version))
        .compose(
            rows ->
                rows.size() > 0
                    ? Future.succeededFuture(version)
                    : Future.failedFuture(
                        new ApiException(
                            ErrorCode.TABLE_VERSION_NOT_FOUND,
                            "version " + version + " of branch " + branch + " not found")));
  }

  private static TableRecord table(Row row) {
    return new TableRecord(
        row.getLong("id"), row.getString("location"), row.getJsonObject("properties"));
  }
}
