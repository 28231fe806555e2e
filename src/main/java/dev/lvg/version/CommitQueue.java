package dev.lvg.version;

import dev.lvg.http.Futures;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.function.IntConsumer;

/**
 * Group commit for one event loop: concurrent {@code version/create} requests wait here and leave
 * in batches, one statement each. A request that arrives while fewer than {@code maxRunning}
 * batches run leaves at once, so an idle gateway adds no latency; under load the next batch forms
 * while earlier ones run. A batch holds at most one request per chain (tenant, table, branch): a
 * second version of the same chain, or an identical retry, waits for a later batch, where the first
 * one's outcome is visible. Not thread-safe: used from its event loop only.
 */
final class CommitQueue {
  /** A request waiting for its answer. */
  record Pending(NewVersion request, Promise<CommitOutcome> answer) {}

  /**
   * Runs one batch; answers every request of it, and completes when it is done. It may call {@code
   * release} earlier, once the batch no longer needs the pipeline (its work left to do holds no
   * slot), to let the next batch start.
   */
  interface BatchRunner {
    Future<Void> run(List<Pending> batch, Runnable release);
  }

  private final BatchRunner runner;
  private final int maxRunning;
  private final int maxBatch;
  private final boolean oneTenant;
  private final IntConsumer batchSizes;
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private int running;

  /**
   * {@code oneTenant}: every batch holds one tenant's requests (a distributed database); {@code
   * batchSizes} hears the size of every batch that leaves.
   */
  CommitQueue(
      BatchRunner runner, int maxRunning, int maxBatch, boolean oneTenant, IntConsumer batchSizes) {
    this.runner = runner;
    this.maxRunning = maxRunning;
    this.maxBatch = maxBatch;
    this.oneTenant = oneTenant;
    this.batchSizes = batchSizes;
  }

  Future<CommitOutcome> submit(NewVersion request) {
    Promise<CommitOutcome> answer = Promise.promise();
    waiting.add(new Pending(request, answer));
    drain();
    return answer.future();
  }

  /** Requests waiting for a batch. */
  int waiting() {
    return waiting.size();
  }

  private void drain() {
    while (running < maxRunning && !waiting.isEmpty()) {
      List<Pending> batch = nextBatch();
      batchSizes.accept(batch.size());
      running++;
      boolean[] released = {false};
      Runnable release =
          () -> {
            if (!released[0]) {
              released[0] = true;
              running--;
              drain();
            }
          };
      Futures.attempt(() -> runner.run(batch, release))
          .onComplete(
              result -> {
                for (Pending pending : batch) {
                  if (!pending.answer().future().isComplete()) {
                    pending.answer().tryFail(result.failed() ? result.cause() : unanswered());
                  }
                }
                release.run();
              });
    }
  }

  private static IllegalStateException unanswered() {
    return new IllegalStateException("a commit batch ended without answering a request");
  }

  /**
   * Up to {@code maxBatch} waiting requests in arrival order, at most one per chain (and, when
   * asked, only the first request's tenant's).
   */
  private List<Pending> nextBatch() {
    List<Pending> batch = new ArrayList<>(Math.min(maxBatch, waiting.size()));
    Set<NewVersion.Chain> chains = new HashSet<>();
    Iterator<Pending> candidates = waiting.iterator();
    while (candidates.hasNext() && batch.size() < maxBatch) {
      Pending candidate = candidates.next();
      boolean sameTenant =
          !oneTenant
              || batch.isEmpty()
              || batch.get(0).request().tenant().id() == candidate.request().tenant().id();
      if (sameTenant && chains.add(candidate.request().chain())) {
        batch.add(candidate);
        candidates.remove();
      }
    }
    return batch;
  }
}
