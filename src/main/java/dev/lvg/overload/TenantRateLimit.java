package dev.lvg.overload;

import dev.lvg.auth.Authentication;
import dev.lvg.http.ApiException;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * A token bucket per tenant, shared by all event loops: a tenant past its rate is answered 503
 * "Slow down" before its request touches the database, and other tenants are not slowed.
 */
public final class TenantRateLimit implements Handler<RoutingContext> {
  private final double ratePerSecond;
  private final int burst;
  private final LongSupplier clock;
  private final ConcurrentHashMap<Long, TokenBucket> buckets = new ConcurrentHashMap<>();

  public TenantRateLimit(double ratePerSecond, int burst, LongSupplier clock) {
    this.ratePerSecond = ratePerSecond;
    this.burst = burst;
    this.clock = clock;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long now = clock.getAsLong();
    TokenBucket bucket =
        buckets.computeIfAbsent(
            Authentication.tenant(ctx).id(), tenant -> new TokenBucket(ratePerSecond, burst, now));
    if (bucket.tryTake(now)) {
      ctx.next();
    } else {
      ctx.fail(
          ApiException.shed(
              "this tenant is over its rate of " + ratePerSecond + " requests per second"));
    }
  }
}
