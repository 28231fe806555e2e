package dev.lvg.overload;

import java.util.ArrayDeque;

/** One requester of a {@link ConcurrencyLimiter}: its requests running and those waiting. */
final class Requester {
  final String name;
  int running;
  final ArrayDeque<Waiting> waiting = new ArrayDeque<>();

  Requester(String name) {
    this.name = name;
  }

  /** Requests running and waiting. */
  int load() {
    return running + waiting.size();
  }

  /** A request waiting for a slot, with what cancels its deadline. */
  static final class Waiting {
    final Requester requester;
    final ConcurrencyLimiter.Waiter waiter;
    final long since;
    Runnable cancelDeadline;

    Waiting(Requester requester, ConcurrencyLimiter.Waiter waiter, long since) {
      this.requester = requester;
      this.waiter = waiter;
      this.since = since;
    }
  }
}
