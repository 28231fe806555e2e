package dev.lvg.catalog;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.transaction.TransactionLog;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.Map;

/** The branch operations of one table: writes run on {@code pool}, reads on {@code reads}. */
record BranchRoutes(Pool pool, Pool reads, BranchRepository branches, Paging paging) {
  public void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_TABLE_BRANCH, this::createBranch);
    routes.json(GatewayOperation.LIST_TABLE_BRANCHES, this::listBranches);
    routes.json(GatewayOperation.DELETE_TABLE_BRANCH, this::deleteBranch);
  }

  private Future<ObjectNode> createBranch(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    String name = ObjectId.name(body.requiredNonEmptyString("name"));
    String fromBranch = body.optionalString("from_branch");
    Long fromVersion = body.optionalNonNegativeLong("from_version");
    String source =
        fromBranch == null || fromBranch.isEmpty() ? Branches.MAIN : ObjectId.name(fromBranch);
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(
            tx ->
                branches
                    .create(tx, actor.tenant(), tableId, name, source, fromVersion)
                    .compose(
                        done ->
                            TransactionLog.record(
                                tx,
                                actor,
                                GatewayOperation.CREATE_TABLE_BRANCH.id(),
                                Map.of("table", tableId.toString(), "branch", name))))
        .map(transaction -> Json.object().put("transaction_id", transaction));
  }

  private Future<ObjectNode> listBranches(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    int limit = paging.limit(ctx);
    String after = Paging.after(ctx);
    return branches
        .list(reads, Authentication.tenant(ctx), tableId, after, limit)
        .map(
            page -> {
              ObjectNode result = Json.object();
              ObjectNode map = result.putObject("branches");
              Paging.shown(page, limit)
                  .forEach(
                      branch -> {
                        ObjectNode contents = map.putObject(branch.name());
                        if (!Branches.MAIN.equals(branch.parentBranch())) {
                          contents.put("parentBranch", branch.parentBranch());
                        }
                        contents.put("parentVersion", branch.parentVersion());
                        contents.put("createAt", branch.createdAtSeconds());
                        contents.put("manifestSize", branch.manifestSize());
                        ObjectNode metadata = contents.putObject("metadata");
                        branch
                            .metadata()
                            .forEach(
                                entry ->
                                    metadata.put(entry.getKey(), String.valueOf(entry.getValue())));
                      });
              return Paging.withToken(result, page, limit, BranchRepository.Branch::name);
            });
  }

  private Future<ObjectNode> deleteBranch(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    String name = ObjectId.name(body.requiredNonEmptyString("name"));
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(
            tx ->
                branches
                    .delete(tx, actor.tenant(), tableId, name)
                    .compose(
                        done ->
                            TransactionLog.record(
                                tx,
                                actor,
                                GatewayOperation.DELETE_TABLE_BRANCH.id(),
                                Map.of("table", tableId.toString(), "branch", name))))
        .map(transaction -> Json.object().put("transaction_id", transaction));
  }
}
