package dev.lvg.version;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlClient;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/** The version operations of one table and its branches. */
public final class VersionRoutes {
  private static final int MAX_RANGES = 1000;

  private final Pool pool;
  private final VersionRepository versions;
  private final BranchRepository branches;
  private final Paging paging;
  private final GatewayMetrics metrics;

  public VersionRoutes(Pool pool, VersionRepository versions, BranchRepository branches, Paging paging,
      GatewayMetrics metrics) {
    this.pool = pool;
    this.versions = versions;
    this.branches = branches;
    this.paging = paging;
    this.metrics = metrics;
  }

  public void mount(Router router) {
    router.post("/v1/table/:id/version/create").handler(Operations.json(this::create));
    router.post("/v1/table/:id/version/list").handler(Operations.json(this::list));
    router.post("/v1/table/:id/version/describe").handler(Operations.json(this::describe));
    router.post("/v1/table/:id/version/delete").handler(Operations.json(this::delete));
    router.post("/v1/table/:id/branches/create").handler(Operations.json(this::createBranch));
    router.post("/v1/table/:id/branches/list").handler(Operations.json(this::listBranches));
    router.post("/v1/table/:id/branches/delete").handler(Operations.json(this::deleteBranch));
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    return createVersion(pool, Requests.tenant(ctx), tableId, body, true);
  }

  /**
   * One {@code CreateTableVersion}: alone it finalizes the manifest when the table is on storage;
   * inside a batch transaction the path is recorded as given.
   */
  Future<ObjectNode> createVersion(SqlClient db, Tenant tenant, List<String> tableId, Body body, boolean single) {
    NewVersion request = NewVersion.from(body);
    Future<VersionRepository.Commit> commit;
    if (single) {
      commit = versions.create(db, tenant, tableId, request).onComplete(metrics::versionCreate);
    } else {
      commit = versions.record(db, tenant, tableId, request);
    }
    return commit.map(stored -> {
      ObjectNode result = Json.object();
      result.set("version", stored.version().toJson());
      result.put("transaction_id", stored.version().transactionId().toString());
      return result;
    });
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    Integer limitParam = Requests.queryInteger(ctx, "limit");
    Long bodyLimit = body.optionalLong("limit");
    int limit = paging.limit(limitParam != null ? Long.valueOf(limitParam) : bodyLimit);
    Boolean descendingParam = Requests.queryBoolean(ctx, "descending");
    boolean descending = descendingParam != null
        ? descendingParam : Boolean.TRUE.equals(body.optionalBoolean("descending"));
    String tokenParam = ctx.queryParams().get("page_token");
    Long after = Paging.decodeLong(tokenParam != null ? tokenParam : body.optionalString("page_token"));
    String branch = branch(ctx, body);
    return versions.list(pool, Requests.tenant(ctx), tableId, branch, descending, after, limit + 1)
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

  /** The branch from the {@code branch} query parameter, else from the body, else main. */
  private static String branch(RoutingContext ctx, Body body) {
    String param = ctx.queryParams().get("branch");
    if (param == null) {
      return NewVersion.branch(body);
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
    return versions.describe(pool, Requests.tenant(ctx), tableId, branch(ctx, body), version)
        .map(found -> {
          ObjectNode result = Json.object();
          result.set("version", found.toJson());
          return result;
        });
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    return deleteVersions(pool, Requests.tenant(ctx), ObjectId.fromRequest(ctx, body), body);
  }

  /** One {@code BatchDeleteTableVersions}, alone or as part of a batch. */
  Future<ObjectNode> deleteVersions(SqlClient db, Tenant tenant, List<String> tableId, Body body) {
    List<VersionRepository.VersionRange> ranges = new ArrayList<>();
    for (Body range : body.requiredObjectList("ranges", MAX_RANGES)) {
      ranges.add(new VersionRepository.VersionRange(
          range.requiredNonNegativeLong("start_version"), requiredLong(range, "end_version")));
    }
    return versions.delete(db, tenant, tableId, NewVersion.branch(body), ranges)
        .map(count -> Json.object()
            .put("deleted_count", count)
            .put("transaction_id", UUID.randomUUID().toString()));
  }

  private static long requiredLong(Body body, String name) {
    Long value = body.optionalLong(name);
    if (value == null) {
      throw ApiException.invalidInput("'" + name + "' is required");
    }
    return value;
  }

  private Future<ObjectNode> createBranch(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    String name = body.requiredNonEmptyString("name");
    String fromBranch = body.optionalString("from_branch");
    Long fromVersion = body.optionalNonNegativeLong("from_version");
    String source = fromBranch == null || fromBranch.isEmpty() ? NewVersion.MAIN_BRANCH : fromBranch;
    return pool.withTransaction(tx -> branches.create(tx, Requests.tenant(ctx), tableId, name, source, fromVersion))
        .map(done -> Json.object().put("transaction_id", UUID.randomUUID().toString()));
  }

  private Future<ObjectNode> listBranches(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    int limit = paging.limit(ctx);
    String after = Paging.decode(ctx.queryParams().get("page_token"));
    return branches.list(pool, Requests.tenant(ctx), tableId, after, limit).map(page -> {
      ObjectNode result = Json.object();
      ObjectNode map = result.putObject("branches");
      page.stream().limit(limit).forEach(branch -> {
        ObjectNode contents = map.putObject(branch.name());
        if (!NewVersion.MAIN_BRANCH.equals(branch.parentBranch())) {
          contents.put("parentBranch", branch.parentBranch());
        }
        contents.put("parentVersion", branch.parentVersion());
        contents.put("createAt", branch.createdAtSeconds());
        contents.put("manifestSize", branch.manifestSize());
        ObjectNode metadata = contents.putObject("metadata");
        branch.metadata().forEach(entry -> metadata.put(entry.getKey(), String.valueOf(entry.getValue())));
      });
      if (page.size() > limit) {
        result.put("page_token", Paging.encode(page.get(limit - 1).name()));
      }
      return result;
    });
  }

  private Future<ObjectNode> deleteBranch(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    List<String> tableId = ObjectId.fromRequest(ctx, body);
    String name = body.requiredNonEmptyString("name");
    return pool.withTransaction(tx -> branches.delete(tx, Requests.tenant(ctx), tableId, name))
        .map(done -> Json.object().put("transaction_id", UUID.randomUUID().toString()));
  }
}
