package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.function.Function;

/**
 * Puts a route behind a {@link ConcurrencyLimiter} for the requests the {@link AdmissionGate} did
 * not decide on before the router (paths spelled otherwise than their route): runs before the body
 * is read, so a refused request costs no body parsing and no database call. An admitted request
 * holds its slot until its answer is sent (or its client goes away). A request that has to wait is
 * paused, so its body stays in the socket until it may run.
 */
public final class Admission implements PlatformHandler {
  /** The key under which a request admitted by the {@link AdmissionGate} holds its permit. */
  static final String ADMITTED = "lvg.admitted";

  private final ConcurrencyLimiter limiter;
  private final Function<RoutingContext, String> tenantOf;

  /** {@code tenantOf} names the requester without a database call (see the limiter's fairness). */
  public Admission(ConcurrencyLimiter limiter, Function<RoutingContext, String> tenantOf) {
    this.limiter = limiter;
    this.tenantOf = tenantOf;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (ctx.get(ADMITTED) != null) {
      ctx.next();
      return;
    }
    Context context = Vertx.currentContext();
    ConcurrencyLimiter.Permit permit;
    try {
      permit =
          limiter.acquire(
              tenantOf.apply(ctx),
              new ConcurrencyLimiter.Waiter() {
                @Override
                public void admit(ConcurrencyLimiter.Permit granted) {
                  context.runOnContext(now -> proceed(ctx, granted));
                }

                @Override
                public void refuse(ApiException error) {
                  context.runOnContext(now -> ctx.fail(error));
                }
              });
    } catch (ApiException refused) {
      ctx.fail(refused);
      return;
    }
    if (permit == null) {
      ctx.request().pause();
    } else {
      proceed(ctx, permit);
    }
  }

  private static void proceed(RoutingContext ctx, ConcurrencyLimiter.Permit permit) {
    if (ctx.response().closed()) {
      permit.release();
      return;
    }
    ctx.addEndHandler(done -> permit.release());
    ctx.next();
  }
}
