package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * A tenant's long write transactions (batches of up to a thousand entries) take turns on this
 * gateway: one runs, the others wait here. In the database they would wait anyway, since the first
 * audit event a transaction records locks its tenant's feed head until it commits; but there each
 * one waiting holds a connection of the write pool, and a tenant's flood of batches took every
 * connection while other tenants' commits queued behind them. Waiting here holds none. At most
 * {@code maxWaiting} of a tenant's wait; the next is refused with 503 code 17 "Slow down".
 */
public final class TenantTurns {
  private final int maxWaiting;

  /** Each tenant with a turn running: the turns waiting after it, in order. Guarded by this. */
  private final Map<Long, Deque<Runnable>> waiting = new HashMap<>();

  public TenantTurns(int maxWaiting) {
    this.maxWaiting = maxWaiting;
  }

  /**
   * Runs {@code work} once the tenant's turns before it have ended, on the calling event loop; its
   * outcome is the answer.
   */
  public <T> Future<T> run(long tenant, Supplier<Future<T>> work) {
    Context context = Vertx.currentContext();
    Promise<T> answer = Promise.promise();
    Runnable turn =
        context == null
            ? () -> take(tenant, work, answer)
            : () -> context.runOnContext(now -> take(tenant, work, answer));
    synchronized (this) {
      Deque<Runnable> queue = waiting.get(tenant);
      if (queue != null) {
        if (queue.size() >= maxWaiting) {
          return Future.failedFuture(
              ApiException.shed(
                  "Slow down: " + maxWaiting + " batches of this tenant already wait their turn"));
        }
        queue.add(turn);
        return answer.future();
      }
      waiting.put(tenant, new ArrayDeque<>());
    }
    take(tenant, work, answer);
    return answer.future();
  }

  /** How many of {@code tenant}'s turns wait now. */
  public synchronized int waiting(long tenant) {
    Deque<Runnable> queue = waiting.get(tenant);
    return queue == null ? 0 : queue.size();
  }

  private <T> void take(long tenant, Supplier<Future<T>> work, Promise<T> answer) {
    Future<T> running;
    try {
      running = work.get();
    } catch (RuntimeException failure) {
      running = Future.failedFuture(failure);
    }
    running.onComplete(
        ended -> {
          next(tenant);
          answer.handle(ended);
        });
  }

  private void next(long tenant) {
    Runnable next;
    synchronized (this) {
      Deque<Runnable> queue = waiting.get(tenant);
      next = queue.poll();
      if (next == null) {
        waiting.remove(tenant);
      }
    }
    if (next != null) {
      next.run();
    }
  }
}
