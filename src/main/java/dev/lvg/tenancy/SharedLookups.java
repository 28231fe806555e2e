package dev.lvg.tenancy;

import dev.lvg.http.Futures;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * One database lookup per key at a time: requests that miss the cache for the same key while its
 * lookup runs wait for that lookup's answer instead of asking again. Without it, a busy key whose
 * entry expired sent every request in flight to the database at once, and the connections they took
 * and the row they all touched held up the commits behind them.
 *
 * <p>A lookup is shared only by callers that asked in the same generation of the cache (see {@link
 * TenantDirectory#forgetAll}): a request that arrives after a credential changed never gets an
 * answer read before the change. Each caller hears the answer on its own context. Thread-safe.
 */
final class SharedLookups<V> {
  private record Waiter<V>(Context context, Promise<V> promise) {}

  private static final class Flight<V> {
    final long generation;
    final List<Waiter<V>> waiters = new ArrayList<>(2);

    Flight(long generation) {
      this.generation = generation;
    }
  }

  private final Map<String, Flight<V>> flights = new HashMap<>();

  /**
   * The answer for {@code key}: the running lookup's, if one of {@code generation} runs, otherwise
   * that of {@code lookUp}, started now.
   */
  Future<V> join(String key, long generation, Supplier<Future<V>> lookUp) {
    Waiter<V> waiter = new Waiter<>(Vertx.currentContext(), Promise.promise());
    Flight<V> flight;
    synchronized (this) {
      Flight<V> running = flights.get(key);
      if (running != null && running.generation == generation) {
        running.waiters.add(waiter);
        return waiter.promise().future();
      }
      flight = new Flight<>(generation);
      flight.waiters.add(waiter);
      flights.put(key, flight);
    }
    Futures.attempt(lookUp).onComplete(result -> land(key, flight, result));
    return waiter.promise().future();
  }

  /** Lookups running now, for tests. */
  synchronized int running() {
    return flights.size();
  }

  private void land(String key, Flight<V> flight, AsyncResult<V> result) {
    List<Waiter<V>> waiters;
    synchronized (this) {
      flights.remove(key, flight);
      waiters = List.copyOf(flight.waiters);
    }
    for (Waiter<V> waiter : waiters) {
      if (waiter.context() == null || waiter.context() == Vertx.currentContext()) {
        waiter.promise().handle(result);
      } else {
        waiter.context().runOnContext(now -> waiter.promise().handle(result));
      }
    }
  }
}
