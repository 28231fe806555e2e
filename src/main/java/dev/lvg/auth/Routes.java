package dev.lvg.auth;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.http.Operations;
import dev.lvg.operation.GatewayOperation;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/**
 * Where features serve their operations, each by its {@link Declaration}. Every operation gets the
 * gateway's common chain (meters, admission, body, authentication, the declared right on the
 * object, quota, the check against its contract's schemas; for an admin operation the admin
 * authorization instead of a tenant's) in front of its own handler, on its own route, so a request
 * is matched once.
 */
public interface Routes {
  void serve(Declaration declaration, Handler<RoutingContext> operation);

  /** Serves {@code operation} with a handler that answers 200 with the JSON it produces. */
  default void json(
      GatewayOperation operation, Function<RoutingContext, Future<? extends JsonNode>> handler) {
    serve(Declaration.of(operation), Operations.json(handler));
  }

  /** Serves {@code operation} with a handler that answers 200 with no body once it succeeds. */
  default void noContent(GatewayOperation operation, Function<RoutingContext, Future<?>> handler) {
    serve(Declaration.of(operation), Operations.noContent(handler));
  }

  /**
   * Serves {@code GET} under {@code prefix} (and {@code prefix} without its last slash) with {@code
   * pages}, outside the chain: static files, not operations of a contract.
   */
  void pages(String prefix, Handler<RoutingContext> pages);
}
