package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.catalog.CatalogRepository;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.metrics.GatewayMetrics;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/** {@code version/create}, {@code version/list} and {@code version/describe}. */
public final class VersionRoutes {
  private final VersionRepository versions;
  private final Paging paging;
  private final GatewayMetrics metrics;

  public VersionRoutes(VersionRepository versions, Paging paging, GatewayMetrics metrics) {
    this.versions = versions;
    this.paging = paging;
    this.metrics = metrics;
  }

  public void mount(Router router) {
    router.post("/v1/table/:id/version/create").handler(Operations.json(this::create));
    router.post("/v1/table/:id/version/list").handler(Operations.json(this::list));
    router.post("/v1/table/:id/version/describe").handler(Operations.json(this::describe));
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    NewVersion request = NewVersion.from(body);
    return versions.create(Requests.tenant(ctx), tableId, request)
        .onComplete(outcome -> metrics.versionCreate(outcome))
        .map(commit -> {
          ObjectNode result = Json.object();
          result.set("version", commit.version().toJson());
          result.put("transaction_id", commit.version().transactionId().toString());
          return result;
        });
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    Integer limitParam = Requests.queryInteger(ctx, "limit");
    Long bodyLimit = body.optionalLong("limit");
    int limit = paging.limit(limitParam != null ? limitParam
        : bodyLimit == null ? null : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, bodyLimit)));
    Boolean descendingParam = Requests.queryBoolean(ctx, "descending");
    boolean descending = descendingParam != null
        ? descendingParam : Boolean.TRUE.equals(body.optionalBoolean("descending"));
    String tokenParam = ctx.queryParams().get("page_token");
    Long after = Paging.decodeLong(tokenParam != null ? tokenParam : body.optionalString("page_token"));
    String branch = ctx.queryParams().get("branch") != null
        ? branchParam(ctx.queryParams().get("branch")) : NewVersion.branch(body);
    return versions.list(Requests.tenant(ctx), tableId, branch, descending, after, limit + 1)
        .map(page -> {
          ObjectNode result = Json.object();
          ArrayNode items = result.putArray("versions");
          page.stream().limit(limit).forEach(version -> items.add(version.toJson()));
          if (page.size() > limit) {
            result.put("page_token", Paging.encode(Long.toString(page.get(limit - 1).version())));
          }
          return result;
        });
  }

  private static String branchParam(String branch) {
    if (branch.isEmpty()) {
      throw dev.lvg.http.ApiException.invalidInput("'branch' must not be empty");
    }
    return branch;
  }

  private Future<ObjectNode> describe(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    CatalogRepository.requireTableId(tableId);
    Long version = body.optionalNonNegativeLong("version");
    return versions.describe(Requests.tenant(ctx), tableId, NewVersion.branch(body), version)
        .map(found -> {
          ObjectNode result = Json.object();
          result.set("version", found.toJson());
          return result;
        });
  }
}
