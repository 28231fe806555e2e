package dev.lvg.auth;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Where features serve their operations, each by its {@link Declaration}. Every operation gets the
 * gateway's common chain (meters, admission, body, authentication, the declared right, quota, the
 * check against its contract's schemas; for an admin operation the admin authorization instead of a
 * tenant's) in front of its own handler, on its own route, so a request is matched once.
 */
public interface Routes {
  void serve(Declaration declaration, Handler<RoutingContext> operation);

  /**
   * Serves {@code GET} under {@code prefix} (and {@code prefix} without its last slash) with {@code
   * pages}, outside the chain: static files, not operations of a contract.
   */
  void pages(String prefix, Handler<RoutingContext> pages);
}
