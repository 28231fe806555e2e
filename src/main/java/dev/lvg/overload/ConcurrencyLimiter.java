package dev.lvg.overload;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Admission in front of the database and storage work of one class of requests (reads, or writes),
 * shared by all event loops. At most {@link AdaptiveLimit#limit()} requests run at once; beyond
 * that a request may wait a short, bounded time for a slot, and otherwise is refused at once with
 * 503 "Slow down", before its body is read or anything is asked of the database.
 *
 * <p>Fairness: a tenant under its fair share (limit / active tenants) while others hold more than
 * theirs runs at once, borrowing one of their slots; slots freed go to the waiting tenant with the
 * fewest requests running; and when the waiting room is full and nothing is left to borrow, a
 * tenant under its share takes the place of the newest waiter of the tenant furthest over its
 * share. So a tenant sending four times what the gateway can serve cannot crowd out a quiet one,
 * even when it took the slots of a growing limit before the quiet one asked.
 *
 * <p>A tenant asking for little of what is served (see {@link Demand}) runs at once, over the
 * limit, up to the ceiling: shares of concurrency alone would refuse a quiet tenant whose requests
 * stay in flight longer while the work slows down.
 *
 * <p>The waiting room holds what the limiter expects to admit within the longest wait: the rate at
 * which requests recently finished times the wait, at least {@link #MIN_WAITING_ROOM}. Thread-safe;
 * a waiting request's answer is completed outside the lock, on the event loop that asked.
 */
public final class ConcurrencyLimiter {
  static final int MIN_WAITING_ROOM = 8;
  static final long WINDOW_NANOS = 100_000_000L;

  /** A slot held by an admitted request; released once, when its answer is sent. */
  public final class Permit {
    private final Requester requester;
    private final long admittedAt;
    private boolean released;

    private Permit(Requester requester, long admittedAt) {
      this.requester = requester;
      this.admittedAt = admittedAt;
    }

    public void release() {
      ConcurrencyLimiter.this.release(this);
    }
  }

  private final String name;
  private final AdaptiveLimit limit;
  private final int ceiling;
  private final long maxWaitNanos;
  private final LongSupplier clock;
  private final Timers timers;
  private final AdmissionObserver observer;
  private final Map<String, Requester> requesters = new HashMap<>();
  private int running;
  private int waitingCount;
  private final RetryAdvice retryAdvice = new RetryAdvice();
  private final Demand demand = new Demand();
  private final TimeBudget budget;

  /**
   * A limiter that also shares the time its requests take among requesters: each earns {@code
   * share.rate()} seconds of it a second, up to {@code share.burstNanos()} (null: no such share).
   */
  public ConcurrencyLimiter(
      String name,
      LimiterSettings settings,
      TimeShare share,
      LongSupplier clock,
      Timers timers,
      AdmissionObserver observer) {
    this.budget = share == null ? null : new TimeBudget(share.rate(), share.burstNanos());
    this.name = name;
    this.limit = new AdaptiveLimit(settings, WINDOW_NANOS);
    this.ceiling = settings.maxLimit();
    this.maxWaitNanos = settings.maxWaitNanos();
    this.clock = clock;
    this.timers = timers;
    this.observer = observer;
  }

  public String name() {
    return name;
  }

  public synchronized int limit() {
    return limit.limit();
  }

  public synchronized int running() {
    return running;
  }

  public synchronized int waiting() {
    return waitingCount;
  }

  /** Requests of {@code requester} running now. */
  public synchronized int running(String requester) {
    Requester state = requesters.get(requester);
    return state == null ? 0 : state.running;
  }

  /** Requests of {@code requester} waiting now. */
  public synchronized int waiting(String requester) {
    Requester state = requesters.get(requester);
    return state == null ? 0 : state.waiting.size();
  }

  /**
   * Asks for a slot for {@code requester} (see {@link Requester}): the answer is the permit, at
   * once when a slot is free now or later after a wait, or a 503 "Slow down" refusal, at once or
   * when the wait ends.
   */
  public Future<Permit> acquire(String requester) {
    List<Runnable> afterwards = new ArrayList<>(1);
    Future<Permit> answer;
    synchronized (this) {
      long now = clock.getAsLong();
      Requester known = requesters.get(requester);
      long owed =
          budget == null ? 0 : budget.wait(requester, now, known == null ? 0 : known.inFlight(now));
      if (owed > 0) {
        retryAdvice.refused();
        afterwards.add(() -> observer.refused(requester, RefusalReason.DATABASE_TIME));
        run(afterwards);
        return Refusals.heldOverBudget(name, owed, timers);
      }
      Requester state = requesters.computeIfAbsent(requester, Requester::new);
      int asked = demand.ask(requester, now);
      Grant grant = grant(state, asked);
      if (grant != null) {
        answer = Future.succeededFuture(admit(state, now));
        afterwards.add(() -> observer.admitted(requester, 0, grant));
      } else {
        ApiException refusal = mayWait(state, afterwards);
        if (refusal != null) {
          forgetIfIdle(state);
          answer = Future.failedFuture(refusal);
        } else {
          answer = await(state, now);
        }
      }
    }
    run(afterwards);
    return answer;
  }

  /**
   * At the limit: whether a request of {@code state}'s may join the waiting room (null), possibly
   * in place of an over-share tenant's waiter, or is refused (the refusal).
   */
  private ApiException mayWait(Requester state, List<Runnable> afterwards) {
    if (maxWaitNanos <= 0) {
      return refuse(state, RefusalReason.QUEUE_FULL, afterwards);
    }
    int active = Requester.activeTenants(requesters.values(), state);
    int share = Math.max(1, limit.limit() / active);
    int room = waitingRoom();
    if (waitingCount >= room) {
      Requester hog =
          active > 1 && state.load() < share
              ? Requester.furthestOver(requesters.values(), share)
              : null;
      if (hog == null || hog == state) {
        return refuse(state, RefusalReason.QUEUE_FULL, afterwards);
      }
      Requester.Waiting evicted = hog.waiting.pollLast();
      waitingCount--;
      evicted.cancelDeadline.run();
      ApiException error = refusal(RefusalReason.FAIR_SHARE);
      afterwards.add(() -> evicted.refuse(error));
      afterwards.add(() -> observer.refused(hog.name, RefusalReason.FAIR_SHARE));
      retryAdvice.refused();
    } else if (active > 1
        && state.load() >= share + Math.max(1, (long) room * share / limit.limit())) {
      return refuse(state, RefusalReason.FAIR_SHARE, afterwards);
    }
    return null;
  }

  /** Puts a request of {@code state}'s in the waiting room, with its deadline. */
  private Future<Permit> await(Requester state, long now) {
    Requester.Waiting waiting = new Requester.Waiting(state, now);
    state.waiting.addLast(waiting);
    waitingCount++;
    waiting.cancelDeadline = timers.schedule(maxWaitNanos, () -> expire(waiting));
    return waiting.answer();
  }

  private ApiException refuse(Requester state, RefusalReason reason, List<Runnable> afterwards) {
    retryAdvice.refused();
    afterwards.add(() -> observer.refused(state.name, reason));
    return refusal(reason);
  }

  /** Why a request of {@code state}'s may run at once, or null when it may not. */
  private Grant grant(Requester state, int asked) {
    if (running < limit.limit() && waitingCount == 0) {
      return Grant.FREE_SLOT;
    }
    if (Requester.mayBorrow(requesters.values(), state, limit.limit(), running)) {
      return Grant.BORROWED_SLOT;
    }
    return running < ceiling && demand.little(asked) ? Grant.LITTLE_DEMAND : null;
  }

  /** What the limiter expects to admit within the longest wait, at the rate requests finish. */
  private int waitingRoom() {
    double rate = limit.recentRatePerSecond();
    if (rate <= 0) {
      return Math.max(MIN_WAITING_ROOM, limit.limit());
    }
    long expected = (long) (rate * maxWaitNanos / 1e9);
    return (int) Math.max(MIN_WAITING_ROOM, Math.min(expected, 4L * limit.limit()));
  }

  private Permit admit(Requester state, long now) {
    running++;
    state.running++;
    state.admittedSum += now;
    demand.admitted(now);
    retryAdvice.admitted();
    return new Permit(state, now);
  }

  private void release(Permit permit) {
    List<Runnable> afterwards = new ArrayList<>(1);
    synchronized (this) {
      if (permit.released) {
        return;
      }
      permit.released = true;
      long now = clock.getAsLong();
      limit.onSample(now, now - permit.admittedAt, running);
      if (budget != null) {
        budget.charge(permit.requester.name, now - permit.admittedAt, now);
      }
      running--;
      permit.requester.running--;
      permit.requester.admittedSum -= permit.admittedAt;
      while (running < limit.limit() && waitingCount > 0) {
        Requester.Waiting next = Requester.nextFair(requesters.values());
        waitingCount--;
        next.cancelDeadline.run();
        Permit granted = admit(next.requester, now);
        long waited = now - next.since;
        afterwards.add(() -> next.admit(granted));
        afterwards.add(() -> observer.admitted(next.requester.name, waited, Grant.WAITED));
      }
      forgetIfIdle(permit.requester);
    }
    run(afterwards);
  }

  private void expire(Requester.Waiting waiting) {
    ApiException error;
    synchronized (this) {
      if (!waiting.requester.waiting.remove(waiting)) {
        return;
      }
      waitingCount--;
      retryAdvice.refused();
      forgetIfIdle(waiting.requester);
      // The advice and the limit are read under the lock, like every other use of them.
      error = refusal(RefusalReason.DEADLINE);
    }
    observer.refused(waiting.requester.name, RefusalReason.DEADLINE);
    waiting.refuse(error);
  }

  private void forgetIfIdle(Requester state) {
    if (state.load() == 0) {
      requesters.remove(state.name);
    }
  }

  private ApiException refusal(RefusalReason reason) {
    return Refusals.atLimit(name, limit.limit(), reason, maxWaitNanos, retryAdvice.seconds());
  }

  private static void run(List<Runnable> actions) {
    for (Runnable action : actions) {
      action.run();
    }
  }
}
