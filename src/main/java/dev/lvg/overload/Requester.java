package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.Collection;

/**
 * One requester of a {@link ConcurrencyLimiter}: its requests running and those waiting; and how
 * the limiter picks among requesters.
 */
final class Requester {
  final String name;
  int running;

  /** The sum of the admission times of its requests running. */
  long admittedSum;

  final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

  Requester(String name) {
    this.name = name;
  }

  /** The time its requests running have taken so far, together. */
  long inFlight(long now) {
    return running * now - admittedSum;
  }

  /** Requests running and waiting. */
  int load() {
    return running + waiting.size();
  }

  /**
   * Whether {@code state}, under its fair share of {@code limit}, may run at once over the limit
   * because other tenants hold more than theirs ({@code running} in all): it borrows one of their
   * slots, which they pay back as their requests finish (no slot is handed on while more than the
   * limit run). At most as many slots are lent as the tenants over their shares hold beyond them.
   */
  static boolean mayBorrow(Collection<Requester> all, Requester state, int limit, int running) {
    int active = activeTenants(all, state);
    if (active < 2) {
      return false;
    }
    int share = Math.max(1, limit / active);
    if (state.running >= share) {
      return false;
    }
    long beyondShares = 0;
    for (Requester other : all) {
      beyondShares += Math.max(0, other.running - share);
    }
    return running - limit < beyondShares;
  }

  /** Tenants with requests running or waiting, counting the arriving one. */
  static int activeTenants(Collection<Requester> all, Requester arriving) {
    int active = arriving.load() == 0 ? 1 : 0;
    for (Requester other : all) {
      if (other.load() > 0) {
        active++;
      }
    }
    return active;
  }

  /** The requester furthest over {@code share} that has someone waiting, or null. */
  static Requester furthestOver(Collection<Requester> all, int share) {
    Requester hog = null;
    for (Requester tenant : all) {
      if (!tenant.waiting.isEmpty()
          && tenant.load() > share
          && (hog == null || tenant.load() > hog.load())) {
        hog = tenant;
      }
    }
    return hog;
  }

  /**
   * The head waiter of the waiting requester with the fewest running (ties go to the longest wait),
   * taken out of its queue; there must be one.
   */
  static Waiting nextFair(Collection<Requester> all) {
    Requester best = null;
    for (Requester tenant : all) {
      if (tenant.waiting.isEmpty()) {
        continue;
      }
      if (best == null
          || tenant.running < best.running
          || tenant.running == best.running
              && tenant.waiting.peekFirst().since < best.waiting.peekFirst().since) {
        best = tenant;
      }
    }
    return best.waiting.pollFirst();
  }

  /**
   * A request waiting for a slot, with what cancels its deadline; its answer is completed on the
   * event loop that asked for it.
   */
  static final class Waiting {
    final Requester requester;
    final long since;
    Runnable cancelDeadline;
    private final Promise<ConcurrencyLimiter.Permit> answer = Promise.promise();
    private final Context context = Vertx.currentContext();

    Waiting(Requester requester, long since) {
      this.requester = requester;
      this.since = since;
    }

    Future<ConcurrencyLimiter.Permit> answer() {
      return answer.future();
    }

    void admit(ConcurrencyLimiter.Permit permit) {
      complete(() -> answer.complete(permit));
    }

    void refuse(ApiException error) {
      complete(() -> answer.fail(error));
    }

    private void complete(Runnable outcome) {
      if (context == null) {
        outcome.run();
      } else {
        context.runOnContext(now -> outcome.run());
      }
    }
  }
}
