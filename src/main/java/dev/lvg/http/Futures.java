package dev.lvg.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;

/** Future helpers the operations share. */
public final class Futures {
  private Futures() {}

  /** What {@code work} returns, or a failed future when it throws instead of failing one. */
  public static <T> Future<T> attempt(Supplier<Future<T>> work) {
    try {
      return work.get();
    } catch (RuntimeException e) {
      return Future.failedFuture(e);
    }
  }

  /**
   * Runs {@code step} on each item in order, each after the previous one succeeded; the first
   * failure (or exception thrown by {@code step}) is the outcome. Steps are started one at a time
   * as the previous one completes, so neither a long list nor a failure deep in it builds a chain
   * of callbacks as deep as the list, and steps that complete at once run in a loop.
   */
  public static <T, R> Future<List<R>> sequence(List<T> items, Function<T, Future<R>> step) {
    Promise<List<R>> done = Promise.promise();
    runFrom(items.iterator(), step, new ArrayList<>(items.size()), done);
    return done.future();
  }

  private static <T, R> void runFrom(
      Iterator<T> items, Function<T, Future<R>> step, List<R> results, Promise<List<R>> done) {
    while (items.hasNext()) {
      Future<R> one;
      try {
        one = step.apply(items.next());
      } catch (RuntimeException e) {
        done.fail(e);
        return;
      }
      if (!one.isComplete()) {
        one.onComplete(
            outcome -> {
              if (outcome.failed()) {
                done.fail(outcome.cause());
              } else {
                results.add(outcome.result());
                runFrom(items, step, results, done);
              }
            });
        return;
      }
      if (one.failed()) {
        done.fail(one.cause());
        return;
      }
      results.add(one.result());
    }
    done.complete(results);
  }
}
