package dev.lvg.http;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/** Future helpers the operations share. */
public final class Futures {
  private Futures() {}

  /** Runs {@code step} on each item in order, each after the previous one succeeded. */
  public static <T, R> Future<List<R>> sequence(List<T> items, Function<T, Future<R>> step) {
    Future<List<R>> chain = Future.succeededFuture(new ArrayList<>(items.size()));
    for (T item : items) {
      chain =
          chain.compose(
              results ->
                  step.apply(item)
                      .map(
                          result -> {
                            results.add(result);
                            return results;
                          }));
    }
    return chain;
  }
}
