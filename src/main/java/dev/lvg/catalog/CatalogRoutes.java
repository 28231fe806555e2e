package dev.lvg.catalog;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.Actor;
import dev.lvg.audit.AuditTrail;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.ObjectAccess;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.NamespaceId;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.http.TableId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;

/** The namespace and table operations a Lance writer calls around its commits. */
public final class CatalogRoutes {
  private final Pool pool;
  private final Pool reads;
  private final CatalogRepository catalog;
  private final NamespaceRepository namespaces;
  private final BranchRepository branches;
  private final Locations locations;
  private final CatalogService service;
  private final Paging paging;

  /**
   * Writes run on {@code pool}, reads on {@code reads}: a flood of reads cannot take the writes'
   * connections.
   */
  public CatalogRoutes(Pool pool, Pool reads, CatalogService service, Paging paging) {
    this.pool = pool;
    this.reads = reads;
    this.catalog = service.repository();
    this.namespaces = catalog.namespaces();
    this.branches = service.branches();
    this.locations = service.locations();
    this.service = service;
    this.paging = paging;
  }

  public void mount(Routes routes) {
    new NamespaceRoutes(pool, reads, catalog, paging).mount(routes);
    routes.json(GatewayOperation.LIST_ALL_TABLES, this::listAllTables);
    routes.json(GatewayOperation.LIST_TABLES, this::listTables);
    routes.json(GatewayOperation.DECLARE_TABLE, this::declareTable);
    routes.json(GatewayOperation.REGISTER_TABLE, this::registerTable);
    routes.json(GatewayOperation.DESCRIBE_TABLE, this::describeTable);
    routes.noContent(GatewayOperation.TABLE_EXISTS, this::tableExists);
    routes.json(GatewayOperation.DEREGISTER_TABLE, this::deregisterTable);
    routes.json(GatewayOperation.DROP_TABLE, this::dropTable);
    routes.json(GatewayOperation.RENAME_TABLE, this::renameTable);
  }

  private Future<ObjectNode> listTables(RoutingContext ctx) {
    NamespaceId namespace = ObjectId.namespace(ctx);
    Requests.queryBoolean(ctx, "include_declared");
    int limit = paging.limit(ctx);
    String after = Paging.after(ctx);
    return catalog
        .listTables(
            reads,
            Authentication.tenant(ctx),
            namespace,
            ObjectAccess.access(ctx).readFilter(),
            after,
            limit)
        .map(names -> page("tables", names, limit));
  }

  /** {@code names} holds up to {@code limit + 1} entries; the extra one only says more remain. */
  static ObjectNode page(String field, List<String> names, int limit) {
    ObjectNode result = Json.object();
    ArrayNode items = result.putArray(field);
    Paging.shown(names, limit).forEach(items::add);
    return Paging.withToken(result, names, limit, name -> name);
  }

  private Future<ObjectNode> declareTable(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    TableId id = ObjectId.table(ctx, body);
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(tx -> service.declare(tx, actor, id, body));
  }

  private Future<ObjectNode> registerTable(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    TableId id = ObjectId.table(ctx, body);
    Tenant tenant = Authentication.tenant(ctx);
    String given = body.requiredNonEmptyString("location");
    String location = locations.clientLocation(tenant, given);
    Map<String, String> properties = body.optionalStringMap("properties");
    String mode = body.optionalString("mode");
    String normalized = mode == null ? "create" : NamespaceRoutes.normalizeMode(mode);
    boolean overwrite =
        switch (normalized) {
          case "create" -> false;
          case "overwrite" -> true;
          default ->
              throw ApiException.invalidInput(
                  "'mode' must be Create or Overwrite, got '" + mode + "'");
        };
    Future<TableRecord> registered =
        AuditTrail.audited(
            pool,
            Actor.of(ctx),
            GatewayOperation.REGISTER_TABLE.id(),
            id.toString(),
            tx ->
                overwrite
                    ? catalog.replaceTable(tx, tenant, id, location, properties)
                    : catalog.createTable(tx, tenant, id, location, properties));
    return registered.map(
        table ->
            CatalogService.withProperties(
                Json.object().put("location", table.location()), table.properties()));
  }

  private Future<ObjectNode> describeTable(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    TableId id = ObjectId.table(ctx, body);
    boolean withUri = flag(ctx, body, "with_table_uri");
    boolean checkDeclared = flag(ctx, body, "check_declared");
    Long version = body.optionalNonNegativeLong("version");
    String branch = Branches.fromBody(body);
    Tenant tenant = Authentication.tenant(ctx);
    Actor actor = Actor.of(ctx);
    // Storage credentials for this table alone, writing only with a right to write it.
    boolean write =
        ObjectAccess.access(ctx).mayOnTable(Right.WRITE, id.namespace().names(), id.name());
    return branches
        .requireBranch(reads, tenant, id, branch)
        .compose(
            table ->
                (version == null
                        ? catalog.latestVersion(reads, tenant, table.id(), branch)
                        : catalog.requireVersion(reads, tenant, table.id(), branch, version))
                    .compose(
                        shown ->
                            service
                                .tableAccess(reads, actor, write, id, table)
                                .map(
                                    access ->
                                        withVersion(
                                            access, id, shown, withUri, checkDeclared, table))));
  }

  private static ObjectNode withVersion(
      ObjectNode access,
      TableId id,
      Long shown,
      boolean withUri,
      boolean checkDeclared,
      TableRecord table) {
    ObjectNode result = access.put("table", id.name());
    ArrayNode namespace = result.putArray("namespace");
    id.namespace().names().forEach(namespace::add);
    if (shown != null) {
      result.put("version", shown);
    }
    if (withUri) {
      result.put("table_uri", table.location());
    }
    if (checkDeclared) {
      result.put("is_only_declared", shown == null);
    }
    return result;
  }

  private Future<?> tableExists(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    Long version = body.optionalNonNegativeLong("version");
    String branch = Branches.fromBody(body);
    Tenant tenant = Authentication.tenant(ctx);
    TableId id = ObjectId.table(ctx, body);
    if (version == null) {
      return catalog.findTable(reads, tenant, id);
    }
    return branches
        .requireBranch(reads, tenant, id, branch)
        .compose(table -> catalog.requireVersion(reads, tenant, table.id(), branch, version));
  }

  private Future<ObjectNode> listAllTables(RoutingContext ctx) {
    String delimiter = ObjectId.delimiter(ctx);
    Requests.queryBoolean(ctx, "include_declared");
    int limit = paging.limit(ctx);
    String token = Paging.after(ctx);
    TableId after = token == null ? null : Paging.decodeId(token);
    return catalog
        .listAllTables(
            reads, Authentication.tenant(ctx), ObjectAccess.access(ctx).readFilter(), after, limit)
        .map(
            ids -> {
              ObjectNode result = Json.object();
              ArrayNode tables = result.putArray("tables");
              Paging.shown(ids, limit)
                  .forEach(id -> tables.add(String.join(delimiter, id.names())));
              return Paging.withToken(result, ids, limit, Paging::encodeId);
            });
  }

  private Future<ObjectNode> deregisterTable(RoutingContext ctx) {
    TableId id = ObjectId.table(ctx, Requests.body(ctx));
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(tx -> service.deregister(tx, actor, id));
  }

  private Future<ObjectNode> dropTable(RoutingContext ctx) {
    TableId id = ObjectId.table(ctx, Requests.body(ctx));
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(tx -> service.drop(tx, actor, id));
  }

  private Future<ObjectNode> renameTable(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    TableId id = ObjectId.table(ctx, body);
    // Renaming makes a table where it goes, as declaring one there would.
    ObjectAccess.check(
        ObjectAccess.access(ctx), Right.MANAGE, CatalogService.renamedTo(id, body), true);
    Actor actor = Actor.of(ctx);
    return pool.withTransaction(tx -> service.rename(tx, actor, id, body));
  }

  private static boolean flag(RoutingContext ctx, Body body, String name) {
    Boolean query = Requests.queryBoolean(ctx, name);
    Boolean inBody = body.optionalBoolean(name);
    return Boolean.TRUE.equals(query) || Boolean.TRUE.equals(inBody);
  }
}
