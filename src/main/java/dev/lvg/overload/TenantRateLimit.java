package dev.lvg.overload;

import dev.lvg.auth.Authentication;
import dev.lvg.http.ApiException;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * An explicit quota per tenant: a token bucket shared by all event loops. A tenant past its rate is
 * answered 503 "Slow down" before its request touches the database, and other tenants are not
 * slowed. Every tenant gets the default rate unless it has a rate of its own.
 */
public final class TenantRateLimit implements Handler<RoutingContext> {
  /** A rate in requests per second and the burst a bucket holds. */
  public record Rate(double perSecond, int burst) {}

  private final Rate defaultRate;
  private final Map<String, Rate> rates;
  private final LongSupplier clock;
  private final ConcurrentHashMap<Long, TokenBucket> buckets = new ConcurrentHashMap<>();

  /** {@code defaultRate} with perSecond 0 leaves tenants without a rate of their own unlimited. */
  public TenantRateLimit(Rate defaultRate, Map<String, Rate> rates, LongSupplier clock) {
    this.defaultRate = defaultRate;
    this.rates = Map.copyOf(rates);
    this.clock = clock;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Tenant tenant = Authentication.tenant(ctx);
    Rate rate = rates.getOrDefault(tenant.name(), defaultRate);
    if (rate.perSecond() <= 0) {
      ctx.next();
      return;
    }
    long now = clock.getAsLong();
    TokenBucket bucket =
        buckets.computeIfAbsent(
            tenant.id(), id -> new TokenBucket(rate.perSecond(), rate.burst(), now));
    if (bucket.tryTake(now)) {
      ctx.next();
    } else {
      ctx.fail(
          ApiException.shed(
              "this tenant is over its quota of " + rate.perSecond() + " requests per second"));
    }
  }
}
