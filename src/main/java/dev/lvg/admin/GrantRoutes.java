package dev.lvg.admin;

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
import dev.lvg.tenancy.Grants;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.util.List;
import java.util.Map;

/**
 * Rights below the tenant on the admin API: grants of a right on a namespace's subtree or a table
 * to a key, a role, a token's claim value or a certificate identity; and roles' members.
 */
record GrantRoutes(Grants grants) {
  GrantRoutes(Pool pool) {
    this(new Grants(pool));
  }

  void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_GRANT, this::create);
    routes.json(GatewayOperation.LIST_GRANTS, this::list);
    routes.json(GatewayOperation.DELETE_GRANT, this::delete);
    routes.json(GatewayOperation.LIST_ROLES, this::roles);
    routes.json(GatewayOperation.ADD_ROLE_MEMBER, this::addMember);
    routes.json(GatewayOperation.REMOVE_ROLE_MEMBER, this::removeMember);
  }

  private Future<ObjectNode> create(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    return grants
        .grant(
            AdminCaller.of(ctx),
            ctx.pathParam("tenant"),
            body.requiredNonEmptyString("grantee"),
            AdminJson.grant(body))
        .map(AdminJson::grant);
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    return grants
        .list(ctx.pathParam("tenant"), ctx.queryParams().get("grantee"))
        .map(AdminJson::grants);
  }

  private Future<ObjectNode> delete(RoutingContext ctx) {
    String grantId = ctx.pathParam("grant_id");
    return grants
        .revoke(AdminCaller.of(ctx), ctx.pathParam("tenant"), grantId)
        .compose(
            revoked ->
                revoked
                    ? Future.succeededFuture(
                        Json.object().put("grant_id", grantId).put("revoked", true))
                    : Future.failedFuture(
                        missing(
                            "tenant '" + ctx.pathParam("tenant") + "' has no grant " + grantId)));
  }

  private Future<ObjectNode> roles(RoutingContext ctx) {
    return grants
        .roles(ctx.pathParam("tenant"))
        .map(
            roles -> {
              ObjectNode answer = Json.object();
              ArrayNode list = answer.putArray("roles");
              for (Map.Entry<String, List<String>> role : roles.members().entrySet()) {
                ObjectNode one = list.addObject().put("role", role.getKey());
                role.getValue().forEach(one.putArray("members")::add);
              }
              return answer;
            });
  }

  private Future<ObjectNode> addMember(RoutingContext ctx) {
    String role = ctx.pathParam("role");
    String member = Requests.requiredBody(ctx).requiredNonEmptyString("member");
    return grants
        .addMember(AdminCaller.of(ctx), ctx.pathParam("tenant"), role, member)
        .map(done -> Json.object().put("role", role).put("member", member));
  }

  private Future<ObjectNode> removeMember(RoutingContext ctx) {
    String role = ctx.pathParam("role");
    String member = ctx.queryParams().get("member");
    if (member == null || member.isEmpty()) {
      throw ApiException.invalidInput("the query parameter 'member' names the member to remove");
    }
    return grants
        .removeMember(AdminCaller.of(ctx), ctx.pathParam("tenant"), role, member)
        .compose(
            removed ->
                removed
                    ? Future.succeededFuture(
                        Json.object().put("role", role).put("member", member).put("removed", true))
                    : Future.failedFuture(
                        missing("role '" + role + "' has no member '" + member + "'")));
  }

  private static ApiException missing(String message) {
    return new ApiException(ErrorCode.NAMESPACE_NOT_FOUND, message);
  }
}
