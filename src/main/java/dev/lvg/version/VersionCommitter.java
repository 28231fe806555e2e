package dev.lvg.version;

import dev.lvg.db.Database;
import dev.lvg.http.ApiException;
import dev.lvg.http.Failures;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
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
 *   <li>Finalize mode: one transaction for the whole batch: insert the rows (which holds their
 *       slots), finalize each staging manifest (see {@link Finalizer}), record the final manifests,
 *       remove the rows whose finalization failed, commit once.
 * </ul>
 *
 * A request whose row was not inserted is explained by a read of its slot ({@link CommitDecision}).
 * A batch statement that failed for certain is retried one request at a time, so one bad request
 * cannot fail the others; a failure that leaves the outcome unknown (the connection broke) is
 * answered only after reading each request's slot back.
 */
final class VersionCommitter implements CommitQueue.BatchRunner {
  /** A request with its table's path joined once, not once per comparison of a sort. */
  private record Keyed(String table, CommitQueue.Pending pending) {}

  private static final Comparator<Keyed> LOCK_ORDER =
      Comparator.comparingLong((Keyed k) -> k.pending().request().tenant().id())
          .thenComparing(Keyed::table)
          .thenComparing(k -> k.pending().request().branch())
          .thenComparingLong(k -> k.pending().request().version());

  private final Vertx vertx;
  private final Pool pool;
  private final VersionRepository repository;
  private final Manifests manifests;

  VersionCommitter(Vertx vertx, Pool pool, VersionRepository repository, Manifests manifests) {
    this.vertx = vertx;
    this.pool = pool;
    this.repository = repository;
    this.manifests = manifests;
  }

  @Override
  public Future<Void> run(List<CommitQueue.Pending> batch, Runnable release) {
    List<Keyed> keyed = new ArrayList<>(batch.size());
    batch.forEach(p -> keyed.add(new Keyed(String.join("/", p.request().tableId()), p)));
    keyed.sort(LOCK_ORDER);
    List<CommitQueue.Pending> ordered = new ArrayList<>(keyed.size());
    keyed.forEach(k -> ordered.add(k.pending()));
    Future<Void> done =
        manifests.finalizes() ? finalizeBatch(ordered, release) : recordBatch(ordered);
    return done.recover(error -> afterBatchFailure(ordered, error));
  }

  private static List<NewVersion> requests(List<CommitQueue.Pending> batch) {
    return batch.stream().map(CommitQueue.Pending::request).toList();
  }

  private Future<Void> recordBatch(List<CommitQueue.Pending> batch) {
    return repository
        .insertVersions(pool, requests(batch), false)
        .compose(
            inserted -> {
              Map<UUID, TableVersion> rows = new HashMap<>();
              inserted.forEach(row -> rows.put(row.row().transactionId(), row.row()));
              List<Future<Void>> answers = new ArrayList<>(batch.size());
              for (CommitQueue.Pending pending : batch) {
                TableVersion row = rows.get(pending.request().transactionId());
                if (row != null) {
                  pending.answer().tryComplete(new Commit(row, true));
                } else {
                  answers.add(explain(pending, null));
                }
              }
              return Future.join(answers).mapEmpty();
            });
  }

  /** One inserted row on its way through finalization. */
  private static final class Entry {
    final CommitQueue.Pending pending;
    final VersionRepository.Inserted inserted;
    Manifests.Target target;
    VersionRepository.FinalManifest manifest;
    Throwable failure;

    Entry(CommitQueue.Pending pending, VersionRepository.Inserted inserted) {
      this.pending = pending;
      this.inserted = inserted;
    }

    UUID attempt() {
      return pending.request().transactionId();
    }
  }

  private Future<Void> finalizeBatch(List<CommitQueue.Pending> batch, Runnable release) {
    List<Entry> entries = new ArrayList<>();
    return pool.getConnection()
        .compose(
            conn -> {
              // BEGIN and the insert go out together (one round trip); BEGIN on a live connection
              // does not fail, and on a broken one neither runs.
              Future<?> begun = conn.query("BEGIN").execute();
              return repository
                  .insertVersions(conn, requests(batch), true)
                  .compose(inserted -> begun.compose(open -> copyAll(batch, inserted, entries)))
                  .compose(copied -> recordAndCommit(conn, entries), error -> rollBack(conn, error))
                  .onComplete(done -> conn.close());
            })
        .compose(
            rows -> {
              release.run();
              return answerFinalized(batch, entries, rows);
            });
  }

  private static <T> Future<T> rollBack(SqlConnection conn, Throwable error) {
    return conn.query("ROLLBACK").execute().transform(rolledBack -> Future.failedFuture(error));
  }

  /**
   * Finalizes the manifest of every inserted row, the copies to one store in one call; a copy's
   * failure stays with its entry.
   */
  private Future<Void> copyAll(
      List<CommitQueue.Pending> batch,
      List<VersionRepository.Inserted> inserted,
      List<Entry> entries) {
    Map<UUID, CommitQueue.Pending> byAttempt = new HashMap<>();
    batch.forEach(pending -> byAttempt.put(pending.request().transactionId(), pending));
    List<Entry> copying = new ArrayList<>();
    for (VersionRepository.Inserted row : inserted) {
      Entry entry = new Entry(byAttempt.get(row.row().transactionId()), row);
      entries.add(entry);
      if (target(entry)) {
        copying.add(entry);
      }
    }
    List<Future<ObjectStore.ObjectInfo>> copies =
        Finalizer.createFinalAll(
            copying.stream().map(entry -> entry.target).toList(),
            copying.stream().map(Entry::attempt).toList());
    List<Future<Void>> outcomes = new ArrayList<>(copying.size());
    for (int i = 0; i < copying.size(); i++) {
      Entry entry = copying.get(i);
      outcomes.add(
          copies
              .get(i)
              .map(
                  info -> {
                    entry.manifest =
                        new VersionRepository.FinalManifest(
                            entry.inserted,
                            entry.target.clientFinalPath(),
                            info.size(),
                            info.eTag());
                    return (Void) null;
                  })
              .otherwise(
                  error -> {
                    entry.failure = error;
                    return null;
                  }));
    }
    return Future.join(outcomes).mapEmpty();
  }

  /**
   * Where the entry's manifest goes: false when it needs no copy or its request is invalid (a path
   * outside the table, or, once the path is known to lie in it, a file that is not a manifest).
   */
  private boolean target(Entry entry) {
    NewVersion request = entry.pending.request();
    try {
      entry.target =
          manifests.target(
              entry.inserted.location(),
              request.manifestPath(),
              request.branch(),
              request.version(),
              request.namingScheme());
    } catch (ApiException invalid) {
      entry.failure = invalid;
      return false;
    }
    if (entry.target != null && request.unreadableManifest() != null) {
      entry.failure = request.unreadableManifest();
      return false;
    }
    return entry.target != null;
  }

  /**
   * Removes the rows that failed, records the final manifests of the others and the audit event,
   * and commits: every statement and the COMMIT go out together, in one round trip. A statement
   * that fails aborts the transaction, so the COMMIT behind it rolls back; its error is the
   * batch's.
   */
  private Future<Map<UUID, TableVersion>> recordAndCommit(SqlConnection conn, List<Entry> entries) {
    List<VersionRepository.Inserted> failed = new ArrayList<>();
    List<VersionRepository.FinalManifest> finalized = new ArrayList<>();
    List<NewVersion> created = new ArrayList<>();
    Map<UUID, TableVersion> rows = new HashMap<>();
    for (Entry entry : entries) {
      if (entry.failure != null) {
        failed.add(entry.inserted);
        continue;
      }
      created.add(entry.pending.request());
      if (entry.manifest != null) {
        finalized.add(entry.manifest);
      } else {
        rows.put(entry.attempt(), entry.inserted.row());
      }
    }
    List<Future<?>> statements = new ArrayList<>();
    if (!failed.isEmpty()) {
      statements.add(repository.deleteInserted(conn, failed));
    }
    statements.add(VersionAudit.record(conn, created));
    if (!finalized.isEmpty()) {
      statements.add(
          repository
              .setFinalManifests(conn, finalized)
              .onSuccess(updated -> updated.forEach(row -> rows.put(row.transactionId(), row))));
    }
    statements.add(conn.query("COMMIT").execute());
    return Future.join(statements)
        .transform(
            all -> {
              for (Future<?> statement : statements) {
                if (statement.failed()) {
                  return Future.failedFuture(statement.cause());
                }
              }
              return Future.succeededFuture(rows);
            });
  }

  /** After the commit: settles finalized manifests, then answers every request of the batch. */
  private Future<Void> answerFinalized(
      List<CommitQueue.Pending> batch, List<Entry> entries, Map<UUID, TableVersion> rows) {
    Map<UUID, Entry> byAttempt = new HashMap<>();
    entries.forEach(entry -> byAttempt.put(entry.attempt(), entry));
    List<Future<Void>> answers = new ArrayList<>(batch.size());
    List<Manifests.Target> targets = new ArrayList<>();
    List<UUID> attempts = new ArrayList<>();
    List<Runnable> afterSettling = new ArrayList<>();
    for (CommitQueue.Pending pending : batch) {
      Entry entry = byAttempt.get(pending.request().transactionId());
      if (entry == null) {
        answers.add(explain(pending, null));
      } else if (entry.failure != null) {
        pending.answer().tryFail(entry.failure);
      } else {
        Commit commit = new Commit(rows.get(entry.attempt()), true);
        if (entry.target == null) {
          pending.answer().tryComplete(commit);
        } else {
          targets.add(entry.target);
          attempts.add(entry.attempt());
          afterSettling.add(() -> pending.answer().tryComplete(commit));
        }
      }
    }
    if (!targets.isEmpty()) {
      answers.add(
          Finalizer.settleAll(targets, attempts)
              .onComplete(settled -> afterSettling.forEach(Runnable::run)));
    }
    return Future.join(answers).mapEmpty();
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

  private Future<Commit> decide(NewVersion request, Slot slot, Throwable batchFailure) {
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
