package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.catalog.CatalogRoutes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Futures;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Requests;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import java.util.List;
import java.util.UUID;

/**
 * Atomic batches: every entry of a request runs on one connection inside one transaction, with the
 * same rules as the single operation, and any failure rolls all of them back.
 */
public final class BatchRoutes {
  private static final int MAX_ENTRIES = 1000;
  private static final String[] OPERATIONS =
      {"declare_table", "create_table_version", "delete_table_versions", "deregister_table"};

  private final Pool pool;
  private final CatalogRoutes catalog;
  private final VersionRoutes versions;

  public BatchRoutes(Pool pool, CatalogRoutes catalog, VersionRoutes versions) {
    this.pool = pool;
    this.catalog = catalog;
    this.versions = versions;
  }

  public void mount(Router router) {
    router.post("/v1/table/version/batch-create").handler(Operations.json(this::batchCreate));
    router.post("/v1/table/batch-commit").handler(Operations.json(this::batchCommit));
  }

  private Future<ObjectNode> batchCreate(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Tenant tenant = Requests.tenant(ctx);
    List<Body> entries = body.requiredObjectList("entries", MAX_ENTRIES);
    entries.forEach(entry -> {
      ObjectId.fromBody(entry);
      NewVersion.from(entry);
    });
    return pool.withTransaction(tx -> Futures.sequence(entries,
            entry -> versions.createVersion(tx, tenant, ObjectId.fromBody(entry), entry, false)))
        .map(created -> {
          ObjectNode result = Json.object();
          ArrayNode list = result.putArray("versions");
          created.forEach(one -> list.add(one.get("version")));
          result.put("transaction_id", UUID.randomUUID().toString());
          return result;
        });
  }

  private Future<ObjectNode> batchCommit(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Tenant tenant = Requests.tenant(ctx);
    List<Body> operations = body.requiredObjectList("operations", MAX_ENTRIES);
    operations.forEach(BatchRoutes::kindOf);
    return pool.withTransaction(tx -> Futures.sequence(operations, operation -> run(tx, tenant, operation)))
        .map(results -> {
          ObjectNode result = Json.object();
          ArrayNode list = result.putArray("results");
          results.forEach(list::add);
          result.put("transaction_id", UUID.randomUUID().toString());
          return result;
        });
  }

  private static String kindOf(Body operation) {
    List<String> kinds = operation.present(OPERATIONS);
    if (kinds.size() != 1) {
      throw ApiException.invalidInput("each operation must hold exactly one of " + String.join(", ", OPERATIONS));
    }
    return kinds.get(0);
  }

  private Future<ObjectNode> run(SqlClient tx, Tenant tenant, Body operation) {
    String kind = kindOf(operation);
    Body request = operation.optionalObject(kind);
    List<String> id = ObjectId.fromBody(request);
    Future<ObjectNode> outcome = switch (kind) {
      case "declare_table" -> catalog.declare(tx, tenant, id, request);
      case "create_table_version" -> versions.createVersion(tx, tenant, id, request, false);
      case "delete_table_versions" -> versions.deleteVersions(tx, tenant, id, request);
      default -> catalog.deregister(tx, tenant, id);
    };
    return outcome.map(one -> {
      ObjectNode wrapped = Json.object();
      wrapped.set(kind, one);
      return wrapped;
    });
  }
}
