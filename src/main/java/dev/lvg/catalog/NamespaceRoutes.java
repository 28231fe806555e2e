package dev.lvg.catalog;

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
import dev.lvg.operation.GatewayOperation;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.Locale;
import java.util.Map;

/**
 * The namespace operations: create, list, describe, check, drop. Writes run on {@code pool}, reads
 * on {@code reads}.
 */
record NamespaceRoutes(Pool pool, Pool reads, CatalogRepository catalog, Paging paging) {
  void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_NAMESPACE, this::createNamespace);
    routes.json(GatewayOperation.LIST_NAMESPACES, this::listNamespaces);
    routes.json(GatewayOperation.DESCRIBE_NAMESPACE, this::describeNamespace);
    routes.noContent(GatewayOperation.NAMESPACE_EXISTS, this::namespaceExists);
    routes.json(GatewayOperation.DROP_NAMESPACE, this::dropNamespace);
  }

  private Future<ObjectNode> createNamespace(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    NamespaceId id = ObjectId.namespace(ctx, body);
    NamespaceRepository.CreateMode mode = namespaceMode(body.optionalString("mode"));
    Map<String, String> properties = body.optionalStringMap("properties");
    for (String part : id.names()) {
      if (part.endsWith(Locations.TABLE_SUFFIX)) {
        throw ApiException.invalidInput(
            "a namespace name must not end with " + Locations.TABLE_SUFFIX);
      }
    }
    Actor actor = Actor.of(ctx);
    return AuditTrail.audited(
            pool,
            actor,
            GatewayOperation.CREATE_NAMESPACE.id(),
            id.toString(),
            tx -> catalog.namespaces().createNamespace(tx, actor.tenant(), id, mode, properties),
            NamespaceRepository.Created::changed)
        .map(created -> CatalogService.withProperties(Json.object(), created.properties()));
  }

  private static NamespaceRepository.CreateMode namespaceMode(String mode) {
    if (mode == null) {
      return NamespaceRepository.CreateMode.CREATE;
    }
    return switch (normalizeMode(mode)) {
      case "create" -> NamespaceRepository.CreateMode.CREATE;
      case "existok" -> NamespaceRepository.CreateMode.EXIST_OK;
      case "overwrite" -> NamespaceRepository.CreateMode.OVERWRITE;
      default ->
          throw ApiException.invalidInput(
              "'mode' must be Create, ExistOk or Overwrite, got '" + mode + "'");
    };
  }

  static String normalizeMode(String mode) {
    return mode.replace("_", "").toLowerCase(Locale.ROOT);
  }

  private Future<ObjectNode> listNamespaces(RoutingContext ctx) {
    NamespaceId parent = ObjectId.namespace(ctx);
    int limit = paging.limit(ctx);
    String after = Paging.after(ctx);
    return catalog
        .namespaces()
        .listNamespaces(
            reads,
            Authentication.tenant(ctx),
            parent,
            ObjectAccess.access(ctx).readFilter(),
            after,
            limit)
        .map(names -> CatalogRoutes.page("namespaces", names, limit));
  }

  private Future<ObjectNode> describeNamespace(RoutingContext ctx) {
    NamespaceId id = ObjectId.namespace(ctx, Requests.body(ctx));
    return catalog
        .namespaces()
        .describeNamespace(reads, Authentication.tenant(ctx), id)
        .map(properties -> CatalogService.withProperties(Json.object(), properties));
  }

  private Future<?> namespaceExists(RoutingContext ctx) {
    NamespaceId id = ObjectId.namespace(ctx, Requests.body(ctx));
    return catalog.namespaces().describeNamespace(reads, Authentication.tenant(ctx), id);
  }

  private Future<ObjectNode> dropNamespace(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    NamespaceId id = ObjectId.namespace(ctx, body);
    String mode = body.optionalString("mode");
    String behavior = body.optionalString("behavior");
    boolean skipMissing =
        switch (mode == null ? "fail" : normalizeMode(mode)) {
          case "fail" -> false;
          case "skip" -> true;
          default ->
              throw ApiException.invalidInput("'mode' must be Fail or Skip, got '" + mode + "'");
        };
    boolean cascade =
        switch (behavior == null ? "restrict" : normalizeMode(behavior)) {
          case "restrict" -> false;
          case "cascade" -> true;
          default ->
              throw ApiException.invalidInput(
                  "'behavior' must be Restrict or Cascade, got '" + behavior + "'");
        };
    Actor actor = Actor.of(ctx);
    return AuditTrail.audited(
            pool,
            actor,
            GatewayOperation.DROP_NAMESPACE.id(),
            id.toString(),
            tx -> catalog.namespaces().dropNamespace(tx, actor.tenant(), id, cascade, skipMissing))
        .map(
            properties ->
                properties == null
                    ? Json.object()
                    : CatalogService.withProperties(Json.object(), properties));
  }
}
