package dev.lvg.catalog;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.audit.AuditTrail;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.ObjectId;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import dev.lvg.transaction.TransactionLog;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.sqlclient.SqlClient;
import java.util.List;
import java.util.Map;

/**
 * The catalog operations that run alone or inside a batch transaction, with their answers. Routes
 * and batches call these; they take the client to run on (the pool, or a transaction).
 */
@Exported
public record CatalogService(
    CatalogRepository repository, BranchRepository branches, Locations locations) {
  /**
   * One {@code DeclareTable}, alone or as part of a batch; {@code db} is a transaction, which its
   * audit record joins.
   */
  public Future<ObjectNode> declare(SqlClient db, Actor actor, TableId id, Body body) {
    Tenant tenant = actor.tenant();
    String given = body.optionalString("location");
    body.optionalBoolean("vend_credentials");
    Map<String, String> properties = body.optionalStringMap("properties");
    Future<String> location =
        given == null
            ? unusedDefaultLocation(db, tenant, id)
            : Future.succeededFuture(locations.clientLocation(tenant, given));
    return location
        .compose(where -> repository.createTable(db, tenant, id, where, properties))
        .compose(
            table ->
                AuditTrail.record(
                        db, actor, GatewayOperation.DECLARE_TABLE.id(), id.toString(), null, null)
                    .compose(recorded -> tableAccess(db, actor, true, id, table)));
  }

  /**
   * The table's default location, or, when a table that was dropped, deregistered or renamed away
   * ever had it, the same with a unique suffix: a new incarnation of a name never shares a location
   * with an old one, so a writer of the old table can never commit into the new one.
   */
  private Future<String> unusedDefaultLocation(SqlClient db, Tenant tenant, TableId id) {
    String location = locations.defaultTableLocation(tenant, id);
    return repository
        .locationTaken(db, tenant, location)
        .map(taken -> taken ? Locations.withUniqueSuffix(location) : location);
  }

  /** One {@code DropTable}: out of the catalog now, its data deleted in the background. */
  public Future<ObjectNode> drop(SqlClient db, Actor actor, TableId id) {
    return repository
        .dropTable(db, actor.tenant(), id)
        .compose(table -> removedTable(db, actor, GatewayOperation.DROP_TABLE.id(), id, table));
  }

  /**
   * The id a {@code RenameTable} of {@code id} gives the table: {@code new_table_name}, in {@code
   * new_namespace_id} when one is given.
   */
  public static TableId renamedTo(TableId id, Body body) {
    String newName = ObjectId.name(body.requiredNonEmptyString("new_table_name"));
    // An empty new_namespace_id is what the spec's generated Java models send when none is set:
    // the table stays in its namespace, as when the field is absent.
    List<String> givenNamespace = body.optionalStringList("new_namespace_id");
    NamespaceId newNamespace =
        givenNamespace == null || givenNamespace.isEmpty()
            ? id.namespace()
            : new NamespaceId(ObjectId.names(givenNamespace));
    return newNamespace.table(newName);
  }

  /** One {@code RenameTable}: {@code new_table_name}, optionally {@code new_namespace_id}. */
  public Future<ObjectNode> rename(SqlClient db, Actor actor, TableId id, Body body) {
    TableId newId = renamedTo(id, body);
    return repository
        .renameTable(db, actor.tenant(), id, newId)
        .compose(
            table ->
                TransactionLog.record(
                    db,
                    actor,
                    GatewayOperation.RENAME_TABLE.id(),
                    Map.of(
                        "table", id.toString(),
                        "new_table", newId.toString(),
                        "location", table.location())))
        .map(transaction -> Json.object().put("transaction_id", transaction));
  }

  /** One {@code DeregisterTable}, alone or as part of a batch. */
  public Future<ObjectNode> deregister(SqlClient db, Actor actor, TableId id) {
    return repository
        .deregisterTable(db, actor.tenant(), id)
        .compose(
            table -> removedTable(db, actor, GatewayOperation.DEREGISTER_TABLE.id(), id, table));
  }

  /** Records a deregister or drop; answers the id, location and properties the table had. */
  private static Future<ObjectNode> removedTable(
      SqlClient db, Actor actor, String operation, TableId id, TableRecord table) {
    return TransactionLog.record(
            db, actor, operation, Map.of("table", id.toString(), "location", table.location()))
        .map(
            transaction -> {
              ObjectNode result = Json.object();
              ArrayNode ids = result.putArray("id");
              id.names().forEach(ids::add);
              result.put("location", table.location());
              withProperties(result, table.properties());
              return result.put("transaction_id", transaction);
            });
  }

  /**
   * What a writer needs to reach the table and to know the gateway commits its versions. Vended
   * credentials (for reading, or also writing when {@code write}) are recorded in the audit trail
   * on {@code db}: to whom, for which table, with which right, until when; never the secret.
   */
  Future<ObjectNode> tableAccess(
      SqlClient db, Actor actor, boolean write, TableId id, TableRecord table) {
    return locations
        .storageAccess(actor.tenant(), table.location(), write)
        .compose(
            access -> {
              ObjectNode result = Json.object().put("location", table.location());
              ObjectNode options = result.putObject("storage_options");
              access.options().forEach(options::put);
              result.put("managed_versioning", true);
              withProperties(result, table.properties());
              if (access.vendedUntilMillis() == null) {
                return Future.succeededFuture(result);
              }
              Actor vendedTo =
                  actor.withContext(
                      Map.of(
                          "right", write ? "write" : "read",
                          "location", table.location(),
                          "expires_at_millis", access.vendedUntilMillis().toString()));
              return AuditTrail.record(db, vendedTo, "VendCredentials", id.toString(), null, null)
                  .map(recorded -> result);
            });
  }

  static ObjectNode withProperties(ObjectNode target, JsonObject properties) {
    ObjectNode node = target.putObject("properties");
    if (properties != null) {
      for (Map.Entry<String, Object> entry : properties) {
        node.put(entry.getKey(), String.valueOf(entry.getValue()));
      }
    }
    return target;
  }
}
