package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.AdminCaller;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.Requests;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.AdminChanges;
import dev.lvg.tenancy.Grants;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.List;

/**
 * The admin API's webhooks: a tenant's endpoints (registered, listed, deleted, enabled again), the
 * rotation of an endpoint's secret, and the events an endpoint never accepted. A new endpoint gets
 * the events committed after it was registered, or every event kept when {@code from} is {@code
 * start}; its secret is shown once.
 */
public record WebhookRoutes(Pool pool, WebhookTargets targets) {
  static final String TENANT = "SELECT id FROM tenants WHERE name = $1";

  static final String INSERT =
      """
      INSERT INTO webhooks (tenant_id, id, url, event_types, secret, delivered_through, grantee)
      VALUES ($1, $2, $3, $4, $5, $6, $7)""";

  static final String LIST =
      """
      SELECT id, url, event_types, grantee, disabled_reason, delivered_through, attempts,
             (extract(epoch FROM next_attempt_at) * 1000)::bigint AS next_attempt_at, last_error,
             (extract(epoch FROM created_at) * 1000)::bigint AS created_at
      FROM webhooks WHERE tenant_id = $1 ORDER BY created_at, id""";

  static final String DELETE = "DELETE FROM webhooks WHERE tenant_id = $1 AND id = $2 RETURNING id";

  static final String ROTATE =
      """
      UPDATE webhooks SET previous_secret = secret, secret = $3,
                          previous_secret_until = now() + interval '24 hours'
      WHERE tenant_id = $1 AND id = $2 RETURNING id""";

  static final String ENABLE =
      """
      UPDATE webhooks SET disabled_reason = NULL, attempts = 0, next_attempt_at = now(),
                          last_error = NULL
      WHERE tenant_id = $1 AND id = $2 RETURNING id""";

  static final String FIND = "SELECT id FROM webhooks WHERE tenant_id = $1 AND id = $2";

  static final String DEAD_LETTERS =
      """
      SELECT position, attempts, last_error, (extract(epoch FROM at) * 1000)::bigint AS at
      FROM webhook_dead_letters WHERE tenant_id = $1 AND webhook_id = $2
      ORDER BY position LIMIT 1000""";

  private static final SecureRandom RANDOM = new SecureRandom();

  public void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_WEBHOOK, this::create);
    routes.json(GatewayOperation.LIST_WEBHOOKS, this::list);
    routes.json(GatewayOperation.DELETE_WEBHOOK, this::delete);
    routes.json(GatewayOperation.ROTATE_WEBHOOK_SECRET, this::rotate);
    routes.json(GatewayOperation.ENABLE_WEBHOOK, this::enable);
    routes.json(GatewayOperation.LIST_WEBHOOK_DEAD_LETTERS, this::deadLetters);
  }

  private Future<Tenant> tenant(RoutingContext ctx) {
    String name = ctx.pathParam("tenant");
    return pool.preparedQuery(TENANT)
        .execute(Tuple.of(name))
        .compose(
            rows ->
                rows.size() == 0
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_FOUND, "tenant '" + name + "' does not exist"))
                    : Future.succeededFuture(new Tenant(rows.iterator().next().getLong(0), name)));
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    String url = body.requiredNonEmptyString("url");
    List<String> types = body.optionalStringList("event_types");
    if (types != null) {
      EventTypes.operations(types); // 400 for a type the feed never carries
    }
    String grantee = body.optionalString("grantee");
    if (grantee != null) {
      Grants.checkGrantee(grantee, true);
    }
    String from = body.optionalString("from");
    if (from != null && !from.equals("now") && !from.equals("start")) {
      throw ApiException.invalidInput("'from' must be now or start, got '" + from + "'");
    }
    String id = "wh_" + HexFormat.of().formatHex(randomBytes());
    String secret = WebhookSigner.newSecret();
    return targets
        .check(url)
        .compose(checked -> tenant(ctx))
        .compose(
            tenant ->
                FeedLog.head(pool, tenant)
                    .compose(
                        head -> {
                          long start = "start".equals(from) ? head.expiredThrough() : head.last();
                          ObjectNode context = Json.object().put("url", url);
                          types(context, types);
                          context.put("grantee", grantee);
                          context.put("from", from == null ? "now" : from);
                          return pool.withTransaction(
                                  conn ->
                                      conn.preparedQuery(INSERT)
                                          .execute(
                                              Tuple.tuple()
                                                  .addLong(tenant.id())
                                                  .addString(id)
                                                  .addString(url)
                                                  .addArrayOfString(
                                                      types == null
                                                          ? null
                                                          : types.toArray(String[]::new))
                                                  .addString(secret)
                                                  .addLong(start)
                                                  .addString(grantee))
                                          .compose(
                                              inserted ->
                                                  AdminChanges.recordChange(
                                                      conn,
                                                      tenant.id(),
                                                      AdminCaller.of(ctx),
                                                      GatewayOperation.CREATE_WEBHOOK.id(),
                                                      id,
                                                      context.toString())))
                              .map(
                                  done -> {
                                    ObjectNode answer = Json.object().put("id", id).put("url", url);
                                    types(answer, types);
                                    answer.put("grantee", grantee);
                                    return answer
                                        .put("secret", secret)
                                        .put("state", "active")
                                        .put("delivered_through", start);
                                  });
                        }));
  }

  private static void types(ObjectNode answer, List<String> types) {
    if (types == null) {
      answer.putNull("event_types");
    } else {
      ArrayNode array = answer.putArray("event_types");
      types.forEach(array::add);
    }
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    return tenant(ctx)
        .compose(tenant -> pool.preparedQuery(LIST).execute(Tuple.of(tenant.id())))
        .map(
            rows -> {
              ObjectNode answer = Json.object();
              ArrayNode hooks = answer.putArray("webhooks");
              for (Row row : rows) {
                ObjectNode hook = hooks.addObject().put("id", row.getString("id"));
                hook.put("url", row.getString("url"));
                String[] types = row.getArrayOfStrings("event_types");
                types(hook, types == null ? null : List.of(types));
                hook.put("grantee", row.getString("grantee"));
                String reason = row.getString("disabled_reason");
                hook.put("state", reason == null ? "active" : "disabled");
                hook.put("disabled_reason", reason);
                hook.put("delivered_through", row.getLong("delivered_through"));
                hook.put("attempts", row.getInteger("attempts"));
                hook.put("next_attempt_at", row.getLong("next_attempt_at"));
                hook.put("last_error", row.getString("last_error"));
                hook.put("created_at", row.getLong("created_at"));
              }
              return answer;
            });
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    return changed(ctx, GatewayOperation.DELETE_WEBHOOK.id(), DELETE, Tuple.tuple())
        .map(id -> Json.object().put("id", id));
  }

  private Future<ObjectNode> rotate(RoutingContext ctx) {
    String secret = WebhookSigner.newSecret();
    return changed(ctx, GatewayOperation.ROTATE_WEBHOOK_SECRET.id(), ROTATE, Tuple.of(secret))
        .map(id -> Json.object().put("id", id).put("secret", secret));
  }

  private Future<ObjectNode> enable(RoutingContext ctx) {
    return changed(ctx, GatewayOperation.ENABLE_WEBHOOK.id(), ENABLE, Tuple.tuple())
        .map(id -> Json.object().put("id", id).put("state", "active"));
  }

  /**
   * Runs {@code sql} on the endpoint of the path ($1 tenant, $2 id, then {@code more}) and, when it
   * found the endpoint, records {@code operation} in the audit trail in the same transaction.
   */
  private Future<String> changed(RoutingContext ctx, String operation, String sql, Tuple more) {
    String id = ctx.pathParam("webhook_id");
    return tenant(ctx)
        .compose(
            tenant -> {
              Tuple values = Tuple.tuple().addLong(tenant.id()).addString(id);
              for (int i = 0; i < more.size(); i++) {
                values.addValue(more.getValue(i));
              }
              return pool.withTransaction(
                  conn ->
                      conn.preparedQuery(sql)
                          .execute(values)
                          .compose(rows -> found(rows, ctx, id))
                          .compose(
                              found ->
                                  AdminChanges.recordChange(
                                          conn,
                                          tenant.id(),
                                          AdminCaller.of(ctx),
                                          operation,
                                          id,
                                          "{}")
                                      .map(found)));
            });
  }

  /** Runs the lookup {@code sql} on the endpoint of the path; 404 when there is none. */
  private Future<String> found(RoutingContext ctx, String sql) {
    String id = ctx.pathParam("webhook_id");
    return tenant(ctx)
        .compose(tenant -> pool.preparedQuery(sql).execute(Tuple.of(tenant.id(), id)))
        .compose(rows -> found(rows, ctx, id));
  }

  private static Future<String> found(RowSet<Row> rows, RoutingContext ctx, String id) {
    return rows.size() == 0
        ? Future.failedFuture(
            new ApiException(
                ErrorCode.NAMESPACE_NOT_FOUND,
                "tenant '" + ctx.pathParam("tenant") + "' has no webhook " + id))
        : Future.succeededFuture(id);
  }

  private Future<ObjectNode> deadLetters(RoutingContext ctx) {
    String id = ctx.pathParam("webhook_id");
    return found(ctx, FIND)
        .compose(found -> tenant(ctx))
        .compose(
            tenant ->
                FeedLog.head(pool, tenant)
                    .compose(
                        head ->
                            pool.preparedQuery(DEAD_LETTERS)
                                .execute(Tuple.of(tenant.id(), id))
                                .map(
                                    rows -> {
                                      ObjectNode answer = Json.object().put("id", id);
                                      ArrayNode letters = answer.putArray("dead_letters");
                                      for (Row row : rows) {
                                        long position = row.getLong("position");
                                        letters
                                            .addObject()
                                            .put(
                                                "event_id",
                                                new FeedCursor(head.epoch(), position).toString())
                                            .put("sequence", FeedCursor.sequence(position))
                                            .put("attempts", row.getInteger("attempts"))
                                            .put("last_error", row.getString("last_error"))
                                            .put("at", row.getLong("at"));
                                      }
                                      return answer;
                                    })));
  }

  private static byte[] randomBytes() {
    byte[] bytes = new byte[8];
    RANDOM.nextBytes(bytes);
    return bytes;
  }
}
