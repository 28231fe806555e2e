package dev.lvg.catalog;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.NamespaceId;
import dev.lvg.tenancy.Access;
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
import java.util.Map;

/**
 * Namespaces of a tenant in PostgreSQL. Every statement is keyed by the tenant. Methods take the
 * client to run on, so the same operation serves alone (the pool) or inside a batch (one
 * transaction's connection).
 */
public final class NamespaceRepository {
  public enum CreateMode {
    CREATE,
    EXIST_OK,
    OVERWRITE
  }

  /** What a create left: the namespace's properties, and whether the create changed anything. */
  public record Created(JsonObject properties, boolean changed) {}

  static final String FIND_NAMESPACE =
      "SELECT properties FROM namespaces WHERE tenant_id = $1 AND path = $2";
  static final String INSERT_NAMESPACE =
      """
      INSERT INTO namespaces (tenant_id, path, properties) VALUES ($1, $2, $3)
      ON CONFLICT DO NOTHING RETURNING properties""";

  /** True when the namespace holds a live table or a child namespace. */
  static final String NAMESPACE_HAS_CHILDREN =
      """
      SELECT EXISTS (SELECT 1 FROM lance_tables t WHERE t.tenant_id = $1 AND t.namespace = $2
                       AND t.deregistered_at IS NULL)
          OR EXISTS (SELECT 1 FROM namespaces c WHERE c.tenant_id = $1
                       AND cardinality(c.path) > cardinality($2::text[])
                       AND c.path[1:cardinality($2::text[])] = $2)""";

  static final String REPLACE_NAMESPACE_PROPERTIES =
      "UPDATE namespaces SET properties = $3 WHERE tenant_id = $1 AND path = $2 RETURNING properties";
  static final String LIST_CHILD_NAMESPACES =
      """
      SELECT path[cardinality(path)] AS name FROM namespaces
      WHERE tenant_id = $1 AND cardinality(path) = cardinality($2::text[]) + 1
        AND path[1:cardinality($2::text[])] = $2 AND path[cardinality(path)] > $3
        AND ($5::text[] IS NULL
          OR EXISTS (SELECT 1 FROM unnest($5::text[]) s
                     WHERE starts_with(array_to_string(path, chr(31)) || chr(31), s))
          OR EXISTS (SELECT 1 FROM unnest($6::text[]) h
                     WHERE starts_with(h, array_to_string(path, chr(31)) || chr(31))))
      ORDER BY name LIMIT $4""";

  /** Removes a namespace and everything below it; tables in it are deregistered, not erased. */
  static final String DEREGISTER_TABLES_UNDER =
      """
      UPDATE lance_tables SET deregistered_at = now()
      WHERE tenant_id = $1 AND deregistered_at IS NULL
        AND cardinality(namespace) >= cardinality($2::text[])
        AND namespace[1:cardinality($2::text[])] = $2""";

  static final String DELETE_NAMESPACES_UNDER =
      """
      DELETE FROM namespaces WHERE tenant_id = $1
        AND cardinality(path) >= cardinality($2::text[]) AND path[1:cardinality($2::text[])] = $2""";

  private static Tuple key(Tenant tenant, NamespaceId namespace) {
    return Tuple.tuple().addLong(tenant.id()).addArrayOfString(namespace.array());
  }

  private static JsonObject json(Map<String, String> properties) {
    return properties == null ? new JsonObject() : new JsonObject(new LinkedHashMap<>(properties));
  }

  /** The namespace's properties; the root namespace always exists and has none. */
  public Future<JsonObject> describeNamespace(SqlClient db, Tenant tenant, NamespaceId namespace) {
    if (namespace.isRoot()) {
      return Future.succeededFuture(new JsonObject());
    }
    return db.preparedQuery(FIND_NAMESPACE)
        .execute(key(tenant, namespace))
        .map(
            rows -> {
              if (rows.size() == 0) {
                throw namespaceNotFound(namespace);
              }
              return rows.iterator().next().getJsonObject(0);
            });
  }

  /**
   * Creates a namespace under an existing parent. A namespace that exists already fails {@code
   * CREATE} (409 code 2), is answered unchanged for {@code EXIST_OK}, and has its properties
   * replaced for {@code OVERWRITE} when it is empty.
   */
  public Future<Created> createNamespace(
      SqlClient db,
      Tenant tenant,
      NamespaceId namespace,
      CreateMode mode,
      Map<String, String> properties) {
    if (namespace.isRoot()) {
      return Future.failedFuture(
          new ApiException(ErrorCode.NAMESPACE_ALREADY_EXISTS, "the root namespace always exists"));
    }
    Tuple params = key(tenant, namespace).addValue(json(properties));
    return describeNamespace(db, tenant, namespace.parent())
        .compose(parentExists -> db.preparedQuery(INSERT_NAMESPACE).execute(params))
        .compose(
            inserted -> {
              if (inserted.size() > 0) {
                return Future.succeededFuture(
                    new Created(inserted.iterator().next().getJsonObject(0), true));
              }
              return switch (mode) {
                case CREATE ->
                    Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_ALREADY_EXISTS,
                            "namespace " + namespace + " already exists"));
                case EXIST_OK ->
                    describeNamespace(db, tenant, namespace)
                        .map(existing -> new Created(existing, false));
                case OVERWRITE ->
                    requireEmpty(
                            db,
                            tenant,
                            namespace,
                            "holds tables or namespaces; overwrite replaces only empty ones")
                        .compose(
                            empty -> db.preparedQuery(REPLACE_NAMESPACE_PROPERTIES).execute(params))
                        .map(
                            replaced ->
                                new Created(replaced.iterator().next().getJsonObject(0), true));
              };
            });
  }

  /**
   * Fails with 409 code 3 ({@code "namespace <name> " + problem}) when the namespace has children.
   */
  private Future<Void> requireEmpty(
      SqlClient db, Tenant tenant, NamespaceId namespace, String problem) {
    return db.preparedQuery(NAMESPACE_HAS_CHILDREN)
        .execute(key(tenant, namespace))
        .compose(
            rows ->
                rows.iterator().next().getBoolean(0)
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_EMPTY,
                            "namespace " + namespace + " " + problem))
                    : Future.succeededFuture());
  }

  /**
   * Drops a namespace. Without {@code cascade} it must be empty (409 code 3); with it, child
   * namespaces go and its tables are deregistered. Returns the dropped namespace's properties, or
   * {@code null} when it did not exist and {@code skipMissing} was asked for.
   */
  public Future<JsonObject> dropNamespace(
      SqlClient db, Tenant tenant, NamespaceId namespace, boolean cascade, boolean skipMissing) {
    if (namespace.isRoot()) {
      return Future.failedFuture(ApiException.invalidInput("the root namespace cannot be dropped"));
    }
    Tuple key = key(tenant, namespace);
    return describeNamespace(db, tenant, namespace)
        .recover(
            missing ->
                skipMissing && isCode(missing, ErrorCode.NAMESPACE_NOT_FOUND)
                    ? Future.succeededFuture(null)
                    : Future.failedFuture(missing))
        .compose(
            properties -> {
              if (properties == null) {
                return Future.succeededFuture(null);
              }
              Future<Void> emptied =
                  cascade
                      ? db.preparedQuery(DEREGISTER_TABLES_UNDER).execute(key).mapEmpty()
                      : requireEmpty(
                          db,
                          tenant,
                          namespace,
                          "is not empty; use behavior Cascade to drop its contents");
              return emptied
                  .compose(done -> db.preparedQuery(DELETE_NAMESPACES_UNDER).execute(key))
                  .map(properties);
            });
  }

  private static boolean isCode(Throwable error, ErrorCode code) {
    return error instanceof ApiException api && api.errorCode() == code;
  }

  /**
   * Names of the child namespaces after {@code after} that {@code visible} keeps (null: all), at
   * most {@code limit + 1} of them.
   */
  public Future<List<String>> listNamespaces(
      SqlClient db,
      Tenant tenant,
      NamespaceId parent,
      Access.Filter visible,
      String after,
      int limit) {
    return namesIn(db, tenant, parent, LIST_CHILD_NAMESPACES, visible, after, limit);
  }

  /**
   * The names {@code query} lists in {@code namespace} after {@code after}, at most {@code limit +
   * 1} (its parameters: the tenant, the namespace, the name after which, the limit, and what the
   * caller may read as {@link #visible} gives it); 404 code 1 when the namespace does not exist.
   */
  Future<List<String>> namesIn(
      SqlClient db,
      Tenant tenant,
      NamespaceId namespace,
      String query,
      Access.Filter visible,
      String after,
      int limit) {
    return describeNamespace(db, tenant, namespace)
        .compose(
            exists ->
                db.preparedQuery(query)
                    .execute(
                        visible(
                            key(tenant, namespace)
                                .addString(after == null ? "" : after)
                                .addInteger(limit + 1),
                            visible,
                            !query.equals(LIST_CHILD_NAMESPACES))))
        .map(NamespaceRepository::names);
  }

  /**
   * {@code tuple} and then what a list statement needs of {@code visible} (two nulls for all): the
   * subtrees read, and the tables read ({@code ofTables}) or the namespaces seen.
   */
  static Tuple visible(Tuple tuple, Access.Filter visible, boolean ofTables) {
    return visible == null
        ? tuple.addArrayOfString(null).addArrayOfString(null)
        : tuple
            .addArrayOfString(visible.subtrees())
            .addArrayOfString(ofTables ? visible.tables() : visible.holders());
  }

  private static List<String> names(RowSet<Row> rows) {
    List<String> names = new ArrayList<>(rows.size());
    for (Row row : rows) {
      names.add(row.getString(0));
    }
    return names;
  }

  static ApiException namespaceNotFound(NamespaceId namespace) {
    return ApiException.namespaceNotFound(namespace);
  }
}
