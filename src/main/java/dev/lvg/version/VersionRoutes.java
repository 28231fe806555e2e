package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.catalog.Branches;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.http.Routes;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;

/** The version operations of one table. */
public final class VersionRoutes {
  /** Where {@code version/create} routes; the gateway counts its outcomes. */
  public static final String CREATE = "/v1/table/:id/version/create";

  /** Set on a request whose {@code version/create} succeeded: true if it created the version. */
  public static final String CREATED = "lvg.created";

  private final Pool pool;
  private final VersionService versions;
  private final Paging paging;

  public VersionRoutes(Pool pool, VersionService versions, Paging paging) {
    this.pool = pool;
    this.versions = versions;
    this.paging = paging;
  }

  public void mount(Routes routes) {
    routes.post(CREATE, Operations.json(this::create));
    routes.post("/v1/table/:id/version/list", Operations.json(this::list));
    routes.post("/v1/table/:id/version/describe", Operations.json(this::describe));
    routes.post("/v1/table/:id/version/delete", Operations.json(this::delete));
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    NewVersion request =
        NewVersion.from(Authentication.tenant(ctx), ObjectId.fromRequest(ctx, body), body);
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
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    Integer limitParam = Requests.queryInteger(ctx, "limit");
    Long bodyLimit = body.optionalLong("limit");
    int limit = paging.limit(limitParam != null ? Long.valueOf(limitParam) : bodyLimit);
    Boolean descendingParam = Requests.queryBoolean(ctx, "descending");
    boolean descending =
        descendingParam != null
            ? descendingParam
            : Boolean.TRUE.equals(body.optionalBoolean("descending"));
    String tokenParam = ctx.queryParams().get("page_token");
    Long after =
        Paging.decodeLong(tokenParam != null ? tokenParam : body.optionalString("page_token"));
    String branch = branch(ctx, body);
    return versions
        .repository()
        .list(pool, Authentication.tenant(ctx), tableId, branch, descending, after, limit + 1)
        .map(
            page -> {
              ObjectNode result = Json.object();
              ArrayNode items = result.putArray("versions");
              page.stream().limit(limit).forEach(version -> items.add(version.toJson()));
              if (page.size() > limit) {
                result.put(
                    "page_token", Paging.encode(Long.toString(page.get(limit - 1).version())));
              }
              return result;
            });
  }

  /** The branch from the {@code branch} query parameter, else from the body, else main. */
  private static String branch(RoutingContext ctx, Body body) {
    String param = ctx.queryParams().get("branch");
    if (param == null) {
      return Branches.fromBody(body);
    }
    if (param.isEmpty()) {
      throw ApiException.invalidInput("'branch' must not be empty");
    }
    return param;
  }

  private Future<ObjectNode> describe(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    Long version = body.optionalNonNegativeLong("version");
    return versions
        .repository()
        .describe(pool, Authentication.tenant(ctx), tableId, branch(ctx, body), version)
        .map(
            found -> {
              ObjectNode result = Json.object();
              result.set("version", found.toJson());
              return result;
            });
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    Tenant tenant = Authentication.tenant(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    return pool.withTransaction(tx -> versions.delete(tx, tenant, tableId, body));
  }
}
