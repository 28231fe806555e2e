package dev.lvg.transaction;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The transactions the gateway has answered, for {@code DescribeTransaction}. A version create's
 * transaction is its version row (no extra write on the commit path); every other operation records
 * one row, on the client it does its work with, so the record commits with the work or not at all.
 * Only committed work is ever recorded, so every transaction found has succeeded.
 */
@Exported
public final class TransactionLog {
  /** The transaction and its audit record, in one statement. */
  static final String RECORD =
      """
      WITH audit AS (INSERT INTO audit_events (tenant_id, operation, credential, object, version,
                                               transaction_id, request_id, context)
                     VALUES ($1, $3, ARRAY[$5::text], ARRAY[$6::text], ARRAY[$7::bigint],
                             ARRAY[$2::uuid], ARRAY[$8::text], ARRAY[$9::text]))
      INSERT INTO transactions (tenant_id, id, operation, properties) VALUES ($1, $2, $3, $4)""";

  static final String FIND =
      "SELECT operation, properties FROM transactions WHERE tenant_id = $1 AND id = $2";

  /** The version that transaction $2 of tenant $1 created. */
  static final String FIND_VERSION =
      """
      SELECT t.namespace, t.name, v.branch, v.version, v.manifest_path, v.lance_transaction
      FROM table_versions v JOIN lance_tables t ON t.tenant_id = v.tenant_id AND t.id = v.table_id
      WHERE v.tenant_id = $1 AND v.transaction_id = $2""";

  /** The version holding a Lance transaction: on any table, or on the table named by $3, $4. */
  static final String FIND_LANCE_TRANSACTION =
      """
      SELECT t.namespace, t.name, v.branch, v.version, v.manifest_path, v.lance_transaction
      FROM table_versions v JOIN lance_tables t ON t.tenant_id = v.tenant_id AND t.id = v.table_id
      WHERE v.tenant_id = $1 AND v.lance_transaction = $2 AND t.deregistered_at IS NULL
        AND ($3::text[] IS NULL OR (t.namespace = $3 AND t.name = $4))
      ORDER BY v.version LIMIT 1""";

  private TransactionLog() {}

  /**
   * Records a transaction of {@code operation} by {@code actor}, and its audit record (its object
   * the {@code table} property, its version the {@code version} property); answers its id.
   */
  public static Future<String> record(
      SqlClient db, Actor actor, String operation, Map<String, String> properties) {
    UUID id = UUID.randomUUID();
    String version = properties.get("version");
    return db.preparedQuery(RECORD)
        .execute(
            Tuple.tuple()
                .addLong(actor.tenant().id())
                .addUUID(id)
                .addString(operation)
                .addValue(new JsonObject(new LinkedHashMap<>(properties)))
                .addString(actor.credential())
                .addString(properties.getOrDefault("table", ""))
                .addLong(version == null ? null : Long.valueOf(version))
                .addString(actor.requestId())
                .addString(actor.context()))
        .map(id.toString());
  }

  /**
   * {@code status} and {@code properties} of a transaction of the tenant, 404 code 10 if none. The
   * id is one the gateway answered, or the uuid of a Lance transaction, alone or of {@code table}
   * (when not null): then the version holding it is described.
   */
  public static Future<ObjectNode> describe(
      SqlClient db, Tenant tenant, TableId table, String transactionId) {
    UUID uuid;
    try {
      uuid = UUID.fromString(transactionId);
    } catch (IllegalArgumentException notUuid) {
      return Future.failedFuture(notFound(transactionId));
    }
    if (table != null) {
      return lanceTransaction(
          db,
          Tuple.of(tenant.id(), uuid)
              .addArrayOfString(table.namespace().array())
              .addString(table.name()),
          transactionId);
    }
    Tuple key = Tuple.of(tenant.id(), uuid);
    return db.preparedQuery(FIND)
        .execute(key)
        .compose(
            rows -> {
              if (rows.size() > 0) {
                Row row = rows.iterator().next();
                Map<String, String> properties = new LinkedHashMap<>();
                properties.put("operation", row.getString("operation"));
                row.getJsonObject("properties")
                    .forEach(
                        field -> properties.put(field.getKey(), String.valueOf(field.getValue())));
                return Future.succeededFuture(succeeded(properties));
              }
              return db.preparedQuery(FIND_VERSION)
                  .execute(key)
                  .compose(
                      versions ->
                          versions.size() > 0
                              ? Future.succeededFuture(version(versions.iterator().next()))
                              : lanceTransaction(
                                  db, key.addArrayOfString(null).addString(null), transactionId));
            });
  }

  private static Future<ObjectNode> lanceTransaction(
      SqlClient db, Tuple params, String transactionId) {
    return db.preparedQuery(FIND_LANCE_TRANSACTION)
        .execute(params)
        .compose(
            rows ->
                rows.size() > 0
                    ? Future.succeededFuture(version(rows.iterator().next()))
                    : Future.failedFuture(notFound(transactionId)));
  }

  /** A version create's transaction: the version it created. */
  private static ObjectNode version(Row version) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("operation", GatewayOperation.CREATE_TABLE_VERSION.id());
    TableId table =
        new NamespaceId(List.of(version.getArrayOfStrings("namespace")))
            .table(version.getString("name"));
    properties.put("table", table.toString());
    properties.put("branch", version.getString("branch"));
    properties.put("version", Long.toString(version.getLong("version")));
    properties.put("manifest_path", version.getString("manifest_path"));
    UUID lance = version.getUUID("lance_transaction");
    if (lance != null) {
      properties.put("lance_transaction_uuid", lance.toString());
    }
    return succeeded(properties);
  }

  private static ObjectNode succeeded(Map<String, String> properties) {
    ObjectNode result = Json.object().put("status", "Succeeded");
    ObjectNode fields = result.putObject("properties");
    properties.forEach(fields::put);
    return result;
  }

  static ApiException notFound(String transactionId) {
    return new ApiException(
        ErrorCode.TRANSACTION_NOT_FOUND, "transaction " + transactionId + " not found");
  }
}
