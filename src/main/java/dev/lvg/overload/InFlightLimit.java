package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Caps the API requests in progress across all event loops. A request past the cap is answered 503
 * "Slow down" before it touches the database.
 */
public final class InFlightLimit implements PlatformHandler {
  private final int limit;
  private final AtomicInteger inFlight = new AtomicInteger();

  public InFlightLimit(int limit) {
    this.limit = limit;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (inFlight.incrementAndGet() > limit) {
      inFlight.decrementAndGet();
      ctx.fail(
          ApiException.shed("the gateway is at its limit of " + limit + " requests in progress"));
      return;
    }
    ctx.addEndHandler(done -> inFlight.decrementAndGet());
    ctx.next();
  }
}
