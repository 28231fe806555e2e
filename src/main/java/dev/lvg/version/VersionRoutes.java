package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.catalog.Branches;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;

/** The version operations of one table: writes run on {@code pool}, reads on {@code reads}. */
public record VersionRoutes(Pool pool, Pool reads, VersionService versions, Paging paging) {
  /** Set on a request whose {@code version/create} succeeded: true if it created the version. */
  public static final String CREATED = "lvg.created";

  public void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_TABLE_VERSION, this::create);
    routes.json(GatewayOperation.LIST_TABLE_VERSIONS, this::list);
    routes.json(GatewayOperation.DESCRIBE_TABLE_VERSION, this::describe);
    routes.json(GatewayOperation.BATCH_DELETE_TABLE_VERSIONS, this::delete);
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    NewVersion request = NewVersion.from(Actor.of(ctx), ObjectId.table(ctx, body), body);
    return versions
        .create(request)
        .map(
            commit -> {
              ctx.put(CREATED, commit.created());
              return commit.toJson();
            });
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    Integer limitParam = Requests.queryInteger(ctx, "limit");
    Long bodyLimit = body.optionalLong("limit");
    int limit = paging.limit(limitParam != null ? Long.valueOf(limitParam) : bodyLimit);
    Boolean descendingParam = Requests.queryBoolean(ctx, "descending");
    boolean descending =
        descendingParam != null
            ? descendingParam
            : Boolean.TRUE.equals(body.optionalBoolean("descending"));
    Long after = Paging.longKey(Paging.after(ctx, body));
    String branch = branch(ctx, body);
    Tenant tenant = Authentication.tenant(ctx);
    return versions
        .reads()
        .list(reads, tenant, tableId, branch, descending, after, limit + 1)
        .compose(
            page ->
                versions
                    .present(reads, Actor.of(ctx), tableId, branch, Paging.shown(page, limit))
                    .map(
                        shown -> {
                          ObjectNode result = Json.object();
                          ArrayNode items = result.putArray("versions");
                          shown.forEach(version -> items.add(version.toJson()));
                          // The token follows the rows read, so pruned ones do not end the walk.
                          return Paging.withToken(
                              result, page, limit, version -> Long.toString(version.version()));
                        }));
  }

  /** The branch from the {@code branch} query parameter, else from the body, else main. */
  private static String branch(RoutingContext ctx, Body body) {
    String param = ctx.queryParams().get("branch");
    return param == null ? Branches.fromBody(body) : Branches.named(param);
  }

  private Future<ObjectNode> describe(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    Long version = body.optionalNonNegativeLong("version");
    String branch = branch(ctx, body);
    Tenant tenant = Authentication.tenant(ctx);
    return versions
        .reads()
        .describe(reads, tenant, tableId, branch, version)
        .compose(found -> versions.present(reads, Actor.of(ctx), tableId, branch, List.of(found)))
        .compose(
            shown ->
                shown.isEmpty()
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.TABLE_VERSION_NOT_FOUND,
                            "the version's manifest was removed from storage by a cleanup"
                                + " of the table"))
                    : Future.succeededFuture(Json.object().set("version", shown.get(0).toJson())));
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Actor actor = Actor.of(ctx);
    TableId tableId = ObjectId.table(ctx, body);
    return pool.withTransaction(tx -> versions.delete(tx, actor, tableId, body));
  }
}
