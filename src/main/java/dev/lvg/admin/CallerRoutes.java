package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.http.Json;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Principal;
import io.vertx.core.Future;

/**
 * {@code GET /v1/whoami}: the tenant and the rights of the credential that asks, so that a client
 * (the console) can show what that credential may do without trying it.
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
          return Future.succeededFuture(answer);
        });
  }
}
