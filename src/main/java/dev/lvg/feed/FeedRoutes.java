package dev.lvg.feed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Declaration;
import dev.lvg.auth.ObjectAccess;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.overload.Admission;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;

/**
 * The change feed's two operations: {@code QueryEvents} pages through a tenant's events after a
 * cursor (its request and response named after the Iceberg REST events proposal), and {@code
 * StreamEvents} tails them live as Server-Sent Events, resuming after {@code Last-Event-ID}.
 */
public final class FeedRoutes {
  /** Event types a live tail may name (its query is checked apart; the contract has the rest). */
  static final int MAX_TYPES = 32;

  /** The longest cursor, as the contract bounds continuation-token. */
  static final int MAX_TOKEN = 64;

  private final Pool pool;
  private final FeedLog log;
  private final FeedHub hub;

  public FeedRoutes(Pool pool, Feed feed, FeedHub hub) {
    this.pool = pool;
    this.log = feed.log();
    this.hub = hub;
  }

  public void mount(Routes routes) {
    routes.serve(Declaration.of(GatewayOperation.QUERY_EVENTS), this::query);
    routes.serve(Declaration.of(GatewayOperation.STREAM_EVENTS), this::stream);
  }

  private void query(RoutingContext ctx) {
    JsonNode body =
        ctx.body().buffer() == null ? Json.object() : Json.parseOptionalObject(ctx.body().buffer());
    int size = body.has("page-size") ? body.get("page-size").asInt() : FeedLog.DEFAULT_PAGE_SIZE;
    FeedFilter filter =
        filter(strings(body.get("operation-types")), objects(body.get("catalog-objects-by-name")))
            .readableBy(ObjectAccess.access(ctx));
    String token = body.path("continuation-token").asText(null);
    Tenant tenant = Authentication.tenant(ctx);
    FeedLog.head(pool, tenant)
        .compose(head -> log.page(pool, tenant, head, FeedLog.start(head, token), filter, size))
        .onComplete(
            outcome -> {
              if (outcome.failed()) {
                ctx.fail(outcome.cause());
                return;
              }
              ObjectNode answer = Json.object();
              ArrayNode events = answer.putArray("events");
              outcome.result().events().forEach(events::add);
              answer.put("continuation-token", outcome.result().next().toString());
              Json.ok(ctx, answer);
            });
  }

  private void stream(RoutingContext ctx) {
    List<String> types = new ArrayList<>();
    for (String value : ctx.queryParam("operation-types")) {
      for (String type : value.split(",")) {
        if (!type.isBlank()) {
          types.add(type.trim());
        }
      }
    }
    if (types.size() > MAX_TYPES) {
      throw ApiException.invalidInput(
          "query parameter operation-types holds " + types.size() + " types; at most " + MAX_TYPES);
    }
    List<String> objects = new ArrayList<>();
    for (String id : ctx.queryParam("catalog-object")) {
      objects.add(ObjectId.display(ObjectId.parse(id, ObjectId.DEFAULT_DELIMITER)));
    }
    FeedFilter filter =
        filter(types.isEmpty() ? null : types, objects.isEmpty() ? null : objects)
            .readableBy(ObjectAccess.access(ctx));
    String token = ctx.request().getHeader("Last-Event-ID");
    if (token == null || token.isBlank()) {
      token = ctx.request().getParam("continuation-token");
    } else if (token.length() > MAX_TOKEN) {
      throw ApiException.invalidInput(
          "header Last-Event-ID holds " + token.length() + " characters; at most " + MAX_TOKEN);
    }
    String from = token;
    Principal principal = Authentication.principal(ctx);
    Tenant tenant = principal.tenant();
    ApiException refused = hub.admit(principal);
    if (refused != null) {
      ctx.fail(refused);
      return;
    }
    FeedLog.head(pool, tenant)
        .onComplete(
            outcome -> {
              long start;
              try {
                if (outcome.failed()) {
                  throw outcome.cause();
                }
                start = FeedLog.start(outcome.result(), from);
              } catch (Throwable failure) {
                hub.unadmit(principal);
                ctx.fail(failure);
                return;
              }
              if (ctx.response().closed()) {
                hub.unadmit(principal);
                return;
              }
              FeedStream stream =
                  new FeedStream(
                      hub,
                      ctx,
                      principal,
                      Authentication.again(ctx),
                      filter,
                      outcome.result().epoch(),
                      start);
              Admission.releaseEarly(ctx);
              stream.open(System.currentTimeMillis());
              hub.add(stream);
            });
  }

  private static FeedFilter filter(List<String> types, List<String> objects) {
    return new FeedFilter(types == null ? null : EventTypes.operations(types), objects);
  }

  private static List<String> strings(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    List<String> values = new ArrayList<>();
    node.forEach(value -> values.add(value.asText()));
    return values;
  }

  private static List<String> objects(JsonNode node) {
    if (node == null || node.isNull()) {
      return null;
    }
    List<String> objects = new ArrayList<>();
    for (JsonNode id : node) {
      List<String> parts = strings(id);
      if (parts == null) {
        throw ApiException.invalidInput("'catalog-objects-by-name' holds lists of names");
      }
      objects.add(ObjectId.display(ObjectId.names(parts)));
    }
    return objects;
  }
}
