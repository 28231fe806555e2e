package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.http.Json;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Principal;
import io.vertx.core.Future;

/**
 * {@code GET /v1/whoami}: the tenant, the rights on the whole tenant and the grants below it of the
 * credential that asks, so that a client (the console) can show what it may do without trying it.
 */
public final class CallerRoutes {
  public void mount(Routes routes) {
    routes.json(
        GatewayOperation.DESCRIBE_CALLER,
        ctx -> {
          Principal principal = Authentication.principal(ctx);
          ObjectNode answer = Json.object().put("tenant", principal.tenant().name());
          ArrayNode rights = answer.putArray("rights");
          for (Right right : Right.values()) {
            if (principal.may(right)) {
              rights.add(right.label());
            }
          }
          ArrayNode grants = answer.putArray("grants");
          for (Access.Grant grant : principal.access().grants()) {
            AdminJson.grant(grants.addObject(), grant);
          }
          return Future.succeededFuture(answer);
        });
  }
}
