package dev.lvg.platform;

import dev.lvg.auth.Routes;
import io.vertx.core.Future;

/**
 * One feature of the gateway: what it starts once for the whole gateway, the operations it serves
 * on each event loop, and what it stops on drain. A feature the gateway does not run is a module
 * not in the list; nothing else names it.
 */
public interface Module {
  /** Its name, in the log and in the module map. */
  String name();

  /**
   * Starts what the module shares across event loops, once, before any of its routes are served;
   * modules start in the order of the list.
   */
  default Future<?> start(Platform platform) {
    return Future.succeededFuture();
  }

  /**
   * Serves its operations on one event loop; called once per API verticle, on that verticle's event
   * loop, after every module has started.
   */
  void routes(Routes routes);

  /**
   * Stops what {@link #start} began; called after the API has drained, modules in the reverse order
   * of the list.
   */
  default Future<?> stop() {
    return Future.succeededFuture();
  }
}
