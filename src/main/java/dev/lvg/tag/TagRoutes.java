package dev.lvg.tag;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.catalog.BranchRepository;
import dev.lvg.catalog.Branches;
import dev.lvg.catalog.TableRecord;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.storage.Manifests;
import dev.lvg.tenancy.Tenant;
import dev.lvg.transaction.TransactionLog;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;

/**
 * The spec's five tag operations, on the tag files Lance keeps in the dataset ({@link TagFiles}). A
 * tag may name only a version the catalog has; its {@code manifestSize} is that version's. In
 * record mode the gateway does not touch storage, so tags are not served (406 code 0).
 */
public final class TagRoutes {
  static final String MANIFEST_SIZE =
      """
      SELECT manifest_size FROM table_versions
      WHERE tenant_id = $1 AND table_id = $2 AND branch = $3 AND version = $4""";

  private final Pool pool;
  private final BranchRepository branches;
  private final TagFiles files;
  private final boolean served;
  private final Paging paging;

  public TagRoutes(Pool pool, BranchRepository branches, Manifests manifests, Paging paging) {
    this.pool = pool;
    this.branches = branches;
    this.files = new TagFiles(manifests.root(), manifests.store());
    this.served = manifests.finalizes();
    this.paging = paging;
  }

  public void mount(Routes routes) {
    routes.json(GatewayOperation.LIST_TABLE_TAGS, this::list);
    routes.json(GatewayOperation.GET_TABLE_TAG_VERSION, this::version);
    routes.json(GatewayOperation.CREATE_TABLE_TAG, this::create);
    routes.json(GatewayOperation.DELETE_TABLE_TAG, this::delete);
    routes.json(GatewayOperation.UPDATE_TABLE_TAG, this::update);
  }

  /** The table the request names, on its main branch; refuses when tags are not served. */
  private Future<TableRecord> table(RoutingContext ctx, Body body) {
    return table(ctx, body, Branches.MAIN);
  }

  /** The table the request names, which must have {@code branch} (404 code 22 otherwise). */
  private Future<TableRecord> table(RoutingContext ctx, Body body, String branch) {
    if (!served) {
      throw new ApiException(
          ErrorCode.UNSUPPORTED,
          "tags live in the dataset's storage, which this gateway does not touch in record mode");
    }
    return branches.requireBranch(
        pool, Authentication.tenant(ctx), ObjectId.table(ctx, body), branch);
  }

  private static String tagName(Body body) {
    return ObjectId.name(body.requiredNonEmptyString("tag"));
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    Long bodyLimit = body.optionalLong("limit");
    String after = Paging.after(ctx, body);
    int limit = ctx.queryParams().contains("limit") ? paging.limit(ctx) : paging.limit(bodyLimit);
    return table(ctx, body)
        .compose(
            table ->
                files
                    .names(table.location())
                    .compose(
                        names -> {
                          List<String> page =
                              names.stream()
                                  .filter(name -> after == null || name.compareTo(after) > 0)
                                  .toList();
                          List<String> shown = Paging.shown(page, limit);
                          List<Future<JsonObject>> reads = new ArrayList<>();
                          shown.forEach(tag -> reads.add(files.read(table.location(), tag)));
                          return Future.all(reads)
                              .map(
                                  read -> {
                                    ObjectNode result = Json.object();
                                    ObjectNode tags = result.putObject("tags");
                                    for (int i = 0; i < shown.size(); i++) {
                                      tags.set(shown.get(i), contents(reads.get(i).result()));
                                    }
                                    return Paging.withToken(result, page, limit, name -> name);
                                  });
                        }));
  }

  /** The spec's {@code TagContents} of a tag file. */
  private static ObjectNode contents(JsonObject file) {
    ObjectNode tag = Json.object();
    if (file.getString("branch") != null) {
      tag.put("branch", file.getString("branch"));
    }
    tag.put("version", file.getLong("version"));
    tag.put("manifestSize", file.getLong("manifestSize", 0L));
    return tag;
  }

  private Future<ObjectNode> version(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    String tag = tagName(body);
    return table(ctx, body)
        .compose(table -> files.read(table.location(), tag))
        .map(
            file -> {
              ObjectNode result = Json.object().put("version", file.getLong("version"));
              if (file.getString("branch") != null) {
                result.put("branch", file.getString("branch"));
              }
              return result;
            });
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    return point(
        ctx,
        GatewayOperation.CREATE_TABLE_TAG,
        (location, tag, write) -> {
          String now = Instant.now().toString();
          return files.create(location, tag, write.apply(now, now));
        });
  }

  /**
   * The version is looked up before the tag, in the upstream contract's order: 404 code 11 first.
   */
  private Future<ObjectNode> update(RoutingContext ctx) {
    return point(
        ctx,
        GatewayOperation.UPDATE_TABLE_TAG,
        (location, tag, write) ->
            files
                .read(location, tag)
                .compose(
                    old -> {
                      String now = Instant.now().toString();
                      return files.replace(
                          location, tag, write.apply(old.getString("createdAt", now), now));
                    }));
  }

  /** Writes a tag file: given its times (created, updated), the file's contents. */
  private interface TagWrite {
    Future<Void> write(
        String location, String tag, BiFunction<String, String, JsonObject> contents);
  }

  /**
   * Points the request's {@code tag} at its {@code version} of {@code branch}, which must be in the
   * catalog, through {@code write}; records {@code operation}.
   */
  private Future<ObjectNode> point(RoutingContext ctx, GatewayOperation operation, TagWrite write) {
    Body body = Requests.requiredBody(ctx);
    String tag = tagName(body);
    long version = body.requiredNonNegativeLong("version");
    String branch = Branches.fromBody(body);
    Tenant tenant = Authentication.tenant(ctx);
    return table(ctx, body, branch)
        .compose(
            table ->
                manifestSize(tenant, table, branch, version)
                    .compose(
                        size ->
                            write.write(
                                table.location(),
                                tag,
                                (created, updated) ->
                                    file(branch, version, size, created, updated))))
        .compose(done -> recorded(operation.id(), ctx, body, tag, version));
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    String tag = tagName(body);
    Tenant tenant = Authentication.tenant(ctx);
    return table(ctx, body)
        .compose(table -> files.delete(table.location(), tag))
        .compose(done -> recorded(GatewayOperation.DELETE_TABLE_TAG.id(), ctx, body, tag, null));
  }

  /** The manifest size of a version {@code table}'s branch has; 404 code 11 when it has not. */
  private Future<Long> manifestSize(Tenant tenant, TableRecord table, String branch, long version) {
    return pool.preparedQuery(MANIFEST_SIZE)
        .execute(Tuple.of(tenant.id(), table.id(), branch, version))
        .compose(
            rows ->
                rows.size() == 0
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.TABLE_VERSION_NOT_FOUND,
                            "version " + version + " of branch " + branch + " not found"))
                    : Future.succeededFuture(rows.iterator().next().getLong(0)));
  }

  private static JsonObject file(
      String branch, long version, Long manifestSize, String createdAt, String updatedAt) {
    Map<String, Object> file = new LinkedHashMap<>();
    file.put("branch", Branches.MAIN.equals(branch) ? null : branch);
    file.put("version", version);
    file.put("createdAt", createdAt);
    file.put("updatedAt", updatedAt);
    file.put("manifestSize", manifestSize == null ? 0L : manifestSize);
    file.put("metadata", new JsonObject());
    return new JsonObject(file);
  }

  private Future<ObjectNode> recorded(
      String operation, RoutingContext ctx, Body body, String tag, Long version) {
    Map<String, String> properties = new LinkedHashMap<>();
    properties.put("table", ObjectId.table(ctx, body).toString());
    properties.put("tag", tag);
    if (version != null) {
      properties.put("version", Long.toString(version));
    }
    return TransactionLog.record(pool, Actor.of(ctx), operation, properties)
        .map(transaction -> Json.object().put("transaction_id", transaction));
  }
}
