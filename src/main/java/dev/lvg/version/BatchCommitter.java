package dev.lvg.version;

import dev.lvg.db.Database;
import dev.lvg.http.ApiException;
import dev.lvg.http.Failures;
import dev.lvg.storage.Manifests;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Commits one batch of {@code version/create} requests and answers each of them.
 *
 * <ul>
 *   <li>Record mode: one {@code INSERT} statement for the whole batch, committed on its own.
 *   <li>Finalize mode: one transaction for the whole batch ({@link FinalizingBatch}).
 * </ul>
 *
 * A request whose row was not inserted is explained by a read of its slot ({@link CommitDecision}).
 * A batch statement that failed for certain is retried one request at a time, so one bad request
 * cannot fail the others; a failure that leaves the outcome unknown (the connection broke) is
 * answered only after reading each request's slot back.
 */
record BatchCommitter(Vertx vertx, Pool pool, VersionRepository repository, Manifests manifests)
    implements CommitQueue.BatchRunner {
  /** A request with its table's path joined once, not once per comparison of a sort. */
  private record Keyed(String table, CommitQueue.Pending pending) {}

  private static final Comparator<Keyed> LOCK_ORDER =
      Comparator.comparingLong((Keyed k) -> k.pending().request().tenant().id())
          .thenComparing(Keyed::table)
          .thenComparing(k -> k.pending().request().branch())
          .thenComparingLong(k -> k.pending().request().version());

  @Override
  public Future<Void> run(List<CommitQueue.Pending> batch, Runnable release) {
    List<Keyed> keyed = new ArrayList<>(batch.size());
    batch.forEach(p -> keyed.add(new Keyed(p.request().tableId().joined("/"), p)));
    keyed.sort(LOCK_ORDER);
    List<CommitQueue.Pending> ordered = new ArrayList<>(keyed.size());
    keyed.forEach(k -> ordered.add(k.pending()));
    Future<Void> done =
        manifests.finalizes()
            ? new FinalizingBatch(pool, repository, manifests, pending -> explain(pending, null))
                .run(ordered, release)
            : recordBatch(ordered);
    return done.recover(error -> afterBatchFailure(ordered, error));
  }

  static List<NewVersion> requests(List<CommitQueue.Pending> batch) {
    return batch.stream().map(CommitQueue.Pending::request).toList();
  }

  private Future<Void> recordBatch(List<CommitQueue.Pending> batch) {
    return repository
        .insertAndRecord(pool, requests(batch))
        .compose(
            inserted -> {
              Map<UUID, TableVersion> rows = new HashMap<>();
              inserted.forEach(row -> rows.put(row.row().transactionId(), row.row()));
              List<Future<Void>> answers = new ArrayList<>(batch.size());
              for (CommitQueue.Pending pending : batch) {
                TableVersion row = rows.get(pending.request().transactionId());
                if (row != null) {
                  pending.answer().tryComplete(new CommitOutcome(row, true));
                } else {
                  answers.add(explain(pending, null));
                }
              }
              return Future.join(answers).mapEmpty();
            });
  }

  /**
   * A batch that failed as a whole: retried one request at a time when the failure is certain and
   * the batch held several; read back request by request when the outcome is unknown.
   */
  private Future<Void> afterBatchFailure(List<CommitQueue.Pending> batch, Throwable error) {
    List<CommitQueue.Pending> unanswered =
        batch.stream().filter(pending -> !pending.answer().future().isComplete()).toList();
    if (unanswered.isEmpty()) {
      return Future.succeededFuture();
    }
    if (Failures.outcomeUnknown(error)) {
      return Future.join(unanswered.stream().map(pending -> explain(pending, error)).toList())
          .mapEmpty();
    }
    if (unanswered.size() > 1 && !(error instanceof ApiException)) {
      return Future.join(
              unanswered.stream().map(pending -> run(List.of(pending), () -> {})).toList())
          .mapEmpty();
    }
    unanswered.forEach(pending -> pending.answer().tryFail(error));
    return Future.succeededFuture();
  }

  /**
   * Answers a request whose row this batch did not insert, from a read of its slot: a replay (whose
   * staging manifest is settled if a crash left it), a refusal, or, when the slot is free, the
   * batch's own failure or a lost race.
   */
  private Future<Void> explain(CommitQueue.Pending pending, Throwable batchFailure) {
    NewVersion request = pending.request();
    return Database.readAgainIfClosed(vertx, () -> repository.inspectSlot(pool, request))
        .compose(slot -> decide(request, slot, batchFailure))
        .onComplete(
            answer -> {
              if (answer.succeeded()) {
                pending.answer().tryComplete(answer.result());
              } else {
                pending
                    .answer()
                    .tryFail(
                        batchFailure != null && !(answer.cause() instanceof ApiException)
                            ? batchFailure
                            : answer.cause());
              }
            })
        .<Void>mapEmpty()
        .otherwiseEmpty();
  }

  private Future<CommitOutcome> decide(NewVersion request, Slot slot, Throwable batchFailure) {
    Manifests.Target target =
        manifests.target(
            slot.location(),
            request.manifestPath(),
            request.branch(),
            request.version(),
            request.namingScheme());
    return CommitDecision.answer(request, slot, batchFailure)
        .compose(replay -> Finalizer.replayed(target, replay.version()).map(replay));
  }
}
