package dev.lvg.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Function;

/** Adapts an operation that returns a future to a route handler; every failure goes to ctx.fail. */
public final class Operations {
  private Operations() {}

  /** Answers 200 with the JSON the operation produces. */
  public static Handler<RoutingContext> json(
      Function<RoutingContext, Future<? extends JsonNode>> operation) {
    return ctx -> run(ctx, operation, body -> Json.ok(ctx, body));
  }

  /** Answers 200 with no body once the operation succeeds (the spec's exists operations). */
  public static Handler<RoutingContext> noContent(Function<RoutingContext, Future<?>> operation) {
    return ctx -> run(ctx, operation, ignored -> ctx.response().setStatusCode(200).end());
  }

  private static <T> void run(
      RoutingContext ctx,
      Function<RoutingContext, Future<? extends T>> operation,
      java.util.function.Consumer<T> respond) {
    Future<? extends T> result;
    try {
      result = operation.apply(ctx);
    } catch (RuntimeException e) {
      ctx.fail(e);
      return;
    }
    result.onComplete(
        outcome -> {
          if (outcome.succeeded()) {
            respond.accept(outcome.result());
          } else {
            ctx.fail(outcome.cause());
          }
        });
  }
}
