package dev.lvg.http;

import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Where features mount their operations. Each operation gets the gateway's common chain (meters,
 * limits, body, authentication) in front of its own handler, on its own route, so a request is
 * matched once.
 */
public interface Routes {
  void post(String path, Handler<RoutingContext> operation);

  void get(String path, Handler<RoutingContext> operation);
}
