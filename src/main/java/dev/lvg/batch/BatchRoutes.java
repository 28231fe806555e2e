package dev.lvg.batch;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.auth.ObjectAccess;
import dev.lvg.auth.Routes;
import dev.lvg.catalog.CatalogService;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Futures;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.overload.TenantTurns;
import dev.lvg.tenancy.Access;
import dev.lvg.transaction.TransactionLog;
import dev.lvg.version.CommitOutcome;
import dev.lvg.version.NewVersion;
import dev.lvg.version.VersionService;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * Atomic batches: every entry of a request runs on one connection inside one transaction, with the
 * same rules as the single operation, and any failure rolls all of them back. A tenant's batches
 * take {@code turns}: one at a time in the database.
 */
public record BatchRoutes(
    Pool pool, CatalogService catalog, VersionService versions, TenantTurns turns) {
  private static final int MAX_ENTRIES = 1000;
  private static final String[] OPERATIONS = {
    "declare_table", "create_table_version", "delete_table_versions", "deregister_table"
  };

  public void mount(Routes routes) {
    routes.json(GatewayOperation.BATCH_CREATE_TABLE_VERSIONS, this::batchCreate);
    routes.json(GatewayOperation.BATCH_COMMIT_TABLES, this::batchCommit);
  }

  private Future<ObjectNode> batchCreate(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Actor actor = Actor.of(ctx);
    List<NewVersion> entries =
        body.requiredObjectList("entries", MAX_ENTRIES).stream()
            .map(entry -> NewVersion.from(actor, ObjectId.table(entry), entry))
            .toList();
    Access access = ObjectAccess.access(ctx);
    // All or nothing: every entry's table is checked before any is written.
    entries.forEach(entry -> ObjectAccess.check(access, Right.WRITE, entry.tableId(), false));
    return all(
        actor,
        GatewayOperation.BATCH_CREATE_TABLE_VERSIONS,
        "versions",
        entries,
        (tx, entry) -> versions.createInTransaction(tx, entry).map(one -> one.version().toJson()));
  }

  private Future<ObjectNode> batchCommit(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Actor actor = Actor.of(ctx);
    List<Body> operations = body.requiredObjectList("operations", MAX_ENTRIES);
    Access access = ObjectAccess.access(ctx);
    for (Body operation : operations) {
      String kind = kindOf(operation);
      Right right =
          kind.equals("create_table_version") || kind.equals("delete_table_versions")
              ? Right.WRITE
              : Right.MANAGE;
      ObjectAccess.check(
          access,
          right,
          ObjectId.table(operation.optionalObject(kind)),
          kind.equals("declare_table"));
    }
    return all(
        actor,
        GatewayOperation.BATCH_COMMIT_TABLES,
        "results",
        operations,
        (tx, operation) -> run(tx, actor, operation));
  }

  /**
   * Runs {@code each} of {@code items} in order in one transaction, in the tenant's turn, and
   * records the batch there: answers the answers under {@code field}, with the batch's {@code
   * transaction_id}.
   */
  private <T> Future<ObjectNode> all(
      Actor actor,
      GatewayOperation operation,
      String field,
      List<T> items,
      BiFunction<SqlClient, T, Future<? extends JsonNode>> each) {
    return turns.run(
        actor.tenant().id(),
        () ->
            pool.withTransaction(
                tx ->
                    Futures.sequence(items, item -> each.apply(tx, item))
                        .compose(
                            answers ->
                                TransactionLog.record(
                                        tx,
                                        actor,
                                        operation.id(),
                                        Map.of("entries", Integer.toString(answers.size())))
                                    .map(
                                        transaction -> {
                                          ObjectNode result = Json.object();
                                          ArrayNode list = result.putArray(field);
                                          answers.forEach(list::add);
                                          return result.put("transaction_id", transaction);
                                        }))));
  }

  private static String kindOf(Body operation) {
    List<String> kinds = operation.present(OPERATIONS);
    if (kinds.size() != 1) {
      throw ApiException.invalidInput(
          "each operation must hold exactly one of " + String.join(", ", OPERATIONS));
    }
    return kinds.get(0);
  }

  private Future<ObjectNode> run(SqlClient tx, Actor actor, Body operation) {
    String kind = kindOf(operation);
    Body request = operation.optionalObject(kind);
    TableId id = ObjectId.table(request);
    Future<ObjectNode> outcome =
        switch (kind) {
          case "declare_table" -> catalog.declare(tx, actor, id, request);
          case "create_table_version" ->
              versions
                  .createInTransaction(tx, NewVersion.from(actor, id, request))
                  .map(CommitOutcome::toJson);
          case "delete_table_versions" -> versions.delete(tx, actor, id, request);
          default -> catalog.deregister(tx, actor, id);
        };
    return outcome.map(
        one -> {
          ObjectNode wrapped = Json.object();
          wrapped.set(kind, one);
          return wrapped;
        });
  }
}
