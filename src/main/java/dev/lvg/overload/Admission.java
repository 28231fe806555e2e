package dev.lvg.overload;

import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.function.Function;

/**
 * Puts an operation behind a {@link ConcurrencyLimiter}: the one place a request is admitted, made
 * to wait or refused with 503 "Slow down". It runs before the body is read, so a refused request
 * costs no body parsing and no database call; a request that has to wait is paused, so its body
 * stays in the socket until it may run. An admitted request holds its slot until its answer is sent
 * (or its client goes away).
 */
public final class Admission implements PlatformHandler {
  private static final String PERMIT = "lvg.admission.permit";

  private final ConcurrencyLimiter limiter;
  private final Function<RoutingContext, String> requesterOf;

  /**
   * {@code requesterOf} names the requester without a database call (see the limiter's fairness).
   */
  public Admission(ConcurrencyLimiter limiter, Function<RoutingContext, String> requesterOf) {
    this.limiter = limiter;
    this.requesterOf = requesterOf;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Future<ConcurrencyLimiter.Permit> admitted = limiter.acquire(requesterOf.apply(ctx));
    if (!admitted.isComplete()) {
      ctx.request().pause();
    }
    admitted.onComplete(permit -> proceed(ctx, permit), ctx::fail);
  }

  private static void proceed(RoutingContext ctx, ConcurrencyLimiter.Permit permit) {
    if (ctx.response().closed()) {
      permit.release();
      return;
    }
    ctx.put(PERMIT, permit);
    ctx.addEndHandler(done -> permit.release());
    ctx.next();
  }

  /**
   * Gives the request's slot back before its answer ends: for a response that stays open (a live
   * tail of the change feed), which would otherwise hold a slot for as long as it is connected.
   */
  public static void releaseEarly(RoutingContext ctx) {
    ConcurrencyLimiter.Permit permit = ctx.get(PERMIT);
    if (permit != null) {
      permit.release();
    }
  }
}
