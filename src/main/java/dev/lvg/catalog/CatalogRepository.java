package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.ObjectId;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Namespaces and tables of a tenant in PostgreSQL. Every statement is keyed by the tenant. */
public final class CatalogRepository {
  static final String FIND_NAMESPACE =
      "SELECT properties FROM namespaces WHERE tenant_id = $1 AND path = $2";
  static final String INSERT_NAMESPACE = """
      INSERT INTO namespaces (tenant_id, path, properties) VALUES ($1, $2, $3)
      ON CONFLICT DO NOTHING RETURNING properties""";
  static final String REPLACE_EMPTY_NAMESPACE = """
      UPDATE namespaces SET properties = $3 WHERE tenant_id = $1 AND path = $2
        AND NOT EXISTS (SELECT 1 FROM lance_tables t WHERE t.tenant_id = $1 AND t.namespace = $2)
        AND NOT EXISTS (SELECT 1 FROM namespaces c WHERE c.tenant_id = $1
                        AND cardinality(c.path) > cardinality($2::text[]) AND c.path[1:cardinality($2::text[])] = $2)
      RETURNING properties""";
  static final String LIST_CHILD_NAMESPACES = """
      SELECT path[cardinality(path)] AS name FROM namespaces
      WHERE tenant_id = $1 AND cardinality(path) = cardinality($2::text[]) + 1
        AND path[1:cardinality($2::text[])] = $2 AND path[cardinality(path)] > $3
      ORDER BY name LIMIT $4""";
  static final String FIND_TABLE = """
      SELECT id, location, properties FROM lance_tables
      WHERE tenant_id = $1 AND namespace = $2 AND name = $3""";
  static final String INSERT_TABLE = """
      INSERT INTO lance_tables (tenant_id, namespace, name, location, properties)
      SELECT $1, $2, $3, $4, $5
      WHERE cardinality($2::text[]) = 0
         OR EXISTS (SELECT 1 FROM namespaces WHERE tenant_id = $1 AND path = $2)
      ON CONFLICT DO NOTHING RETURNING id, location, properties""";
  static final String DELETE_TABLE = """
      DELETE FROM lance_tables WHERE tenant_id = $1 AND namespace = $2 AND name = $3
      RETURNING id, location, properties""";
  static final String LIST_TABLES = """
      SELECT name FROM lance_tables WHERE tenant_id = $1 AND namespace = $2 AND name > $3
      ORDER BY name LIMIT $4""";
  static final String LATEST_VERSION = """
      SELECT max(version) FROM table_versions WHERE tenant_id = $1 AND table_id = $2 AND branch = $3""";

  private final Pool pool;

  public CatalogRepository(Pool pool) {
    this.pool = pool;
  }

  private static String[] array(List<String> parts) {
    return parts.toArray(String[]::new);
  }

  private static JsonObject json(Map<String, String> properties) {
    return properties == null ? new JsonObject() : new JsonObject(new java.util.LinkedHashMap<>(properties));
  }

  /** The namespace's properties; the root namespace always exists and has none. */
  public Future<JsonObject> describeNamespace(Tenant tenant, List<String> namespace) {
    if (namespace.isEmpty()) {
      return Future.succeededFuture(new JsonObject());
    }
    return pool.preparedQuery(FIND_NAMESPACE)
        .execute(Tuple.tuple().addLong(tenant.id()).addArrayOfString(array(namespace)))
        .map(rows -> {
          if (rows.size() == 0) {
            throw namespaceNotFound(namespace);
          }
          return rows.iterator().next().getJsonObject(0);
        });
  }

  public enum CreateMode { CREATE, EXIST_OK, OVERWRITE }

  public Future<JsonObject> createNamespace(
      Tenant tenant, List<String> namespace, CreateMode mode, Map<String, String> properties) {
    if (namespace.isEmpty()) {
      return Future.failedFuture(new ApiException(ErrorCode.NAMESPACE_ALREADY_EXISTS,
          "the root namespace always exists"));
    }
    List<String> parent = namespace.subList(0, namespace.size() - 1);
    Tuple params = Tuple.of(tenant.id(), array(namespace), json(properties));
    return describeNamespace(tenant, parent)
        .compose(parentExists -> pool.preparedQuery(INSERT_NAMESPACE).execute(params))
        .compose(inserted -> {
          if (inserted.size() > 0) {
            return Future.succeededFuture(inserted.iterator().next().getJsonObject(0));
          }
          return switch (mode) {
            case CREATE -> Future.failedFuture(new ApiException(ErrorCode.NAMESPACE_ALREADY_EXISTS,
                "namespace " + ObjectId.display(namespace) + " already exists"));
            case EXIST_OK -> describeNamespace(tenant, namespace);
            case OVERWRITE -> pool.preparedQuery(REPLACE_EMPTY_NAMESPACE).execute(params).map(replaced -> {
              if (replaced.size() == 0) {
                throw new ApiException(ErrorCode.NAMESPACE_NOT_EMPTY, "namespace "
                    + ObjectId.display(namespace) + " holds tables or namespaces; overwrite only replaces empty ones");
              }
              return replaced.iterator().next().getJsonObject(0);
            });
          };
        });
  }

  /** Names of the child namespaces after {@code after}, at most {@code limit + 1} of them. */
  public Future<List<String>> listNamespaces(Tenant tenant, List<String> parent, String after, int limit) {
    return describeNamespace(tenant, parent)
        .compose(exists -> pool.preparedQuery(LIST_CHILD_NAMESPACES)
            .execute(Tuple.of(tenant.id(), array(parent), after == null ? "" : after, limit + 1)))
        .map(CatalogRepository::names);
  }

  public Future<List<String>> listTables(Tenant tenant, List<String> namespace, String after, int limit) {
    return describeNamespace(tenant, namespace)
        .compose(exists -> pool.preparedQuery(LIST_TABLES)
            .execute(Tuple.of(tenant.id(), array(namespace), after == null ? "" : after, limit + 1)))
        .map(CatalogRepository::names);
  }

  private static List<String> names(RowSet<Row> rows) {
    List<String> names = new ArrayList<>(rows.size());
    for (Row row : rows) {
      names.add(row.getString(0));
    }
    return names;
  }

  /** Creates the table entry; 404 code 1 when its namespace is missing, 409 code 5 when taken. */
  public Future<TableRecord> createTable(
      Tenant tenant, List<String> tableId, String location, Map<String, String> properties) {
    return createTable(pool, tenant, tableId, location, properties);
  }

  private Future<TableRecord> createTable(SqlClient client,
      Tenant tenant, List<String> tableId, String location, Map<String, String> properties) {
    List<String> namespace = namespaceOf(tableId);
    return client.preparedQuery(INSERT_TABLE)
        .execute(Tuple.of(tenant.id(), array(namespace), nameOf(tableId), location, json(properties)))
        .compose(rows -> {
          if (rows.size() > 0) {
            return Future.succeededFuture(table(rows.iterator().next()));
          }
          return describeNamespace(tenant, namespace).compose(exists -> Future.failedFuture(
              new ApiException(ErrorCode.TABLE_ALREADY_EXISTS,
                  "table " + ObjectId.display(tableId) + " already exists")));
        });
  }

  /** Replaces an existing registration (and its version history) or creates a new one. */
  public Future<TableRecord> replaceTable(
      Tenant tenant, List<String> tableId, String location, Map<String, String> properties) {
    Tuple key = Tuple.of(tenant.id(), array(namespaceOf(tableId)), nameOf(tableId));
    return pool.withTransaction(conn -> conn.preparedQuery(DELETE_TABLE).execute(key)
        .compose(deleted -> createTable(conn, tenant, tableId, location, properties)));
  }

  /** The table, failing with 404 code 1 or 4 naming what is missing. */
  public Future<TableRecord> findTable(Tenant tenant, List<String> tableId) {
    requireTableId(tableId);
    List<String> namespace = namespaceOf(tableId);
    return pool.preparedQuery(FIND_TABLE)
        .execute(Tuple.of(tenant.id(), array(namespace), nameOf(tableId)))
        .compose(rows -> {
          if (rows.size() > 0) {
            return Future.succeededFuture(table(rows.iterator().next()));
          }
          return tableNotFound(tenant, tableId);
        });
  }

  /** Fails with 404 code 1 when the table's namespace is missing, else with 404 code 4. */
  public <T> Future<T> tableNotFound(Tenant tenant, List<String> tableId) {
    return describeNamespace(tenant, namespaceOf(tableId)).compose(exists -> Future.failedFuture(
        new ApiException(ErrorCode.TABLE_NOT_FOUND, "table " + ObjectId.display(tableId) + " not found")));
  }

  public Future<TableRecord> deregisterTable(Tenant tenant, List<String> tableId) {
    requireTableId(tableId);
    return pool.preparedQuery(DELETE_TABLE)
        .execute(Tuple.of(tenant.id(), array(namespaceOf(tableId)), nameOf(tableId)))
        .compose(rows -> rows.size() > 0
            ? Future.succeededFuture(table(rows.iterator().next()))
            : tableNotFound(tenant, tableId));
  }

  public Future<Long> latestVersion(Tenant tenant, long tableId, String branch) {
    return pool.preparedQuery(LATEST_VERSION).execute(Tuple.of(tenant.id(), tableId, branch))
        .map(rows -> rows.iterator().next().getLong(0));
  }

  private static TableRecord table(Row row) {
    return new TableRecord(row.getLong("id"), row.getString("location"), row.getJsonObject("properties"));
  }

  public static void requireTableId(List<String> tableId) {
    if (tableId.isEmpty()) {
      throw ApiException.invalidInput("a table id needs at least one part: the table name");
    }
  }

  public static List<String> namespaceOf(List<String> tableId) {
    return tableId.subList(0, tableId.size() - 1);
  }

  public static String nameOf(List<String> tableId) {
    return tableId.get(tableId.size() - 1);
  }

  static ApiException namespaceNotFound(List<String> namespace) {
    return new ApiException(ErrorCode.NAMESPACE_NOT_FOUND, "namespace " + ObjectId.display(namespace) + " not found");
  }
}
