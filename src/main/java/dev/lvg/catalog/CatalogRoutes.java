package dev.lvg.catalog;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.http.Operations;
import dev.lvg.http.Paging;
import dev.lvg.http.Requests;
import dev.lvg.tenancy.Tenant;
import dev.lvg.version.NewVersion;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The namespace and table operations a Lance writer calls around its commits. */
public final class CatalogRoutes {
  private final CatalogRepository catalog;
  private final Locations locations;
  private final Paging paging;

  public CatalogRoutes(CatalogRepository catalog, Locations locations, Paging paging) {
    this.catalog = catalog;
    this.locations = locations;
    this.paging = paging;
  }

  public void mount(Router router) {
    router.post("/v1/namespace/:id/create").handler(Operations.json(this::createNamespace));
    router.get("/v1/namespace/:id/list").handler(Operations.json(this::listNamespaces));
    router.post("/v1/namespace/:id/describe").handler(Operations.json(this::describeNamespace));
    router.post("/v1/namespace/:id/exists").handler(Operations.noContent(this::namespaceExists));
    router.get("/v1/namespace/:id/table/list").handler(Operations.json(this::listTables));
    router.post("/v1/table/:id/declare").handler(Operations.json(this::declareTable));
    router.post("/v1/table/:id/register").handler(Operations.json(this::registerTable));
    router.post("/v1/table/:id/describe").handler(Operations.json(this::describeTable));
    router.post("/v1/table/:id/exists").handler(Operations.noContent(this::tableExists));
    router.post("/v1/table/:id/deregister").handler(Operations.json(this::deregisterTable));
  }

  private Future<ObjectNode> createNamespace(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> id = ObjectId.fromRequest(ctx, body);
    CatalogRepository.CreateMode mode = namespaceMode(body.optionalString("mode"));
    Map<String, String> properties = body.optionalStringMap("properties");
    for (String part : id) {
      if (part.endsWith(Locations.TABLE_SUFFIX)) {
        throw ApiException.invalidInput("a namespace name must not end with " + Locations.TABLE_SUFFIX);
      }
    }
    return catalog.createNamespace(Requests.tenant(ctx), id, mode, properties)
        .map(stored -> withProperties(Json.object(), stored));
  }

  private static CatalogRepository.CreateMode namespaceMode(String mode) {
    if (mode == null) {
      return CatalogRepository.CreateMode.CREATE;
    }
    return switch (normalizeMode(mode)) {
      case "create" -> CatalogRepository.CreateMode.CREATE;
      case "existok" -> CatalogRepository.CreateMode.EXIST_OK;
      case "overwrite" -> CatalogRepository.CreateMode.OVERWRITE;
      default -> throw ApiException.invalidInput(
          "'mode' must be Create, ExistOk or Overwrite, got '" + mode + "'");
    };
  }

  private static String normalizeMode(String mode) {
    return mode.replace("_", "").toLowerCase(Locale.ROOT);
  }

  private Future<ObjectNode> listNamespaces(RoutingContext ctx) {
    List<String> parent = ObjectId.parse(ctx.pathParam("id"), ObjectId.delimiter(ctx));
    int limit = paging.limit(ctx);
    String after = Paging.decode(ctx.queryParams().get("page_token"));
    return catalog.listNamespaces(Requests.tenant(ctx), parent, after, limit)
        .map(names -> page("namespaces", names, limit));
  }

  private Future<ObjectNode> listTables(RoutingContext ctx) {
    List<String> namespace = ObjectId.parse(ctx.pathParam("id"), ObjectId.delimiter(ctx));
    Requests.queryBoolean(ctx, "include_declared");
    int limit = paging.limit(ctx);
    String after = Paging.decode(ctx.queryParams().get("page_token"));
    return catalog.listTables(Requests.tenant(ctx), namespace, after, limit)
        .map(names -> page("tables", names, limit));
  }

  /** {@code names} holds up to {@code limit + 1} entries; the extra one only says more remain. */
  private static ObjectNode page(String field, List<String> names, int limit) {
    ObjectNode result = Json.object();
    ArrayNode items = result.putArray(field);
    names.stream().limit(limit).forEach(items::add);
    if (names.size() > limit) {
      result.put("page_token", Paging.encode(names.get(limit - 1)));
    }
    return result;
  }

  private Future<ObjectNode> describeNamespace(RoutingContext ctx) {
    List<String> id = ObjectId.fromRequest(ctx, Requests.body(ctx));
    return catalog.describeNamespace(Requests.tenant(ctx), id)
        .map(properties -> withProperties(Json.object(), properties));
  }

  private Future<?> namespaceExists(RoutingContext ctx) {
    List<String> id = ObjectId.fromRequest(ctx, Requests.body(ctx));
    return catalog.describeNamespace(Requests.tenant(ctx), id);
  }

  private Future<ObjectNode> declareTable(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> id = tableId(ctx, body);
    Tenant tenant = Requests.tenant(ctx);
    String location = location(tenant, id, body.optionalString("location"));
    body.optionalBoolean("vend_credentials");
    return catalog.createTable(tenant, id, location, body.optionalStringMap("properties"))
        .map(table -> tableAccess(table));
  }

  private Future<ObjectNode> registerTable(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    List<String> id = tableId(ctx, body);
    Tenant tenant = Requests.tenant(ctx);
    String given = body.requiredNonEmptyString("location");
    String location = locations.clientLocation(tenant, given);
    Map<String, String> properties = body.optionalStringMap("properties");
    String mode = body.optionalString("mode");
    String normalized = mode == null ? "create" : normalizeMode(mode);
    Future<TableRecord> registered = switch (normalized) {
      case "create" -> catalog.createTable(tenant, id, location, properties);
      case "overwrite" -> catalog.replaceTable(tenant, id, location, properties);
      default -> throw ApiException.invalidInput("'mode' must be Create or Overwrite, got '" + mode + "'");
    };
    return registered.map(table -> withProperties(Json.object().put("location", table.location()),
        table.properties()));
  }

  private Future<ObjectNode> describeTable(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> id = tableId(ctx, body);
    boolean withUri = flag(ctx, body, "with_table_uri");
    boolean checkDeclared = flag(ctx, body, "check_declared");
    body.optionalNonNegativeLong("version");
    String branch = NewVersion.branch(body);
    Tenant tenant = Requests.tenant(ctx);
    return catalog.findTable(tenant, id).compose(table -> catalog.latestVersion(tenant, table.id(), branch)
        .map(latest -> {
          ObjectNode result = tableAccess(table)
              .put("table", CatalogRepository.nameOf(id));
          ArrayNode namespace = result.putArray("namespace");
          CatalogRepository.namespaceOf(id).forEach(namespace::add);
          if (latest != null) {
            result.put("version", latest);
          }
          if (withUri) {
            result.put("table_uri", table.location());
          }
          if (checkDeclared) {
            result.put("is_only_declared", latest == null);
          }
          return result;
        }));
  }

  private Future<?> tableExists(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    body.optionalNonNegativeLong("version");
    return catalog.findTable(Requests.tenant(ctx), tableId(ctx, body));
  }

  private Future<ObjectNode> deregisterTable(RoutingContext ctx) {
    List<String> id = tableId(ctx, Requests.body(ctx));
    return catalog.deregisterTable(Requests.tenant(ctx), id).map(table -> {
      ObjectNode result = Json.object();
      ArrayNode ids = result.putArray("id");
      id.forEach(ids::add);
      result.put("location", table.location());
      return withProperties(result, table.properties());
    });
  }

  private static List<String> tableId(RoutingContext ctx, Body body) {
    List<String> id = ObjectId.fromRequest(ctx, body);
    CatalogRepository.requireTableId(id);
    return id;
  }

  private String location(Tenant tenant, List<String> id, String given) {
    return given == null
        ? locations.defaultTableLocation(tenant, CatalogRepository.namespaceOf(id), CatalogRepository.nameOf(id))
        : locations.clientLocation(tenant, given);
  }

  /** What a writer needs to reach the table and to know the gateway commits its versions. */
  private static ObjectNode tableAccess(TableRecord table) {
    ObjectNode result = Json.object().put("location", table.location());
    result.putObject("storage_options");
    result.put("managed_versioning", true);
    return withProperties(result, table.properties());
  }

  private static boolean flag(RoutingContext ctx, Body body, String name) {
    Boolean query = Requests.queryBoolean(ctx, name);
    Boolean inBody = body.optionalBoolean(name);
    return Boolean.TRUE.equals(query) || Boolean.TRUE.equals(inBody);
  }

  private static ObjectNode withProperties(ObjectNode target, JsonObject properties) {
    ObjectNode node = target.putObject("properties");
    if (properties != null) {
      for (Map.Entry<String, Object> entry : properties) {
        node.put(entry.getKey(), String.valueOf(entry.getValue()));
      }
    }
    return target;
  }
}
