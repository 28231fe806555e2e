package dev.lvg.version;

import dev.lvg.http.ApiException;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.Function;

/**
 * One batch in finalize mode, in one transaction: insert the rows (which holds their slots),
 * finalize each staging manifest (see {@link Finalizer}), remove the rows whose finalization
 * failed, record the final manifests and the audit events, commit once; then settle the finalized
 * manifests and answer each request. A request whose row was not inserted goes to {@code explain}
 * (see {@link BatchCommitter}); a failure of the batch as a whole is its future's.
 */
final class FinalizingBatch {
  private final Pool pool;
  private final VersionRepository repository;
  private final Manifests manifests;
  private final Function<CommitQueue.Pending, Future<Void>> explain;

  FinalizingBatch(
      Pool pool,
      VersionRepository repository,
      Manifests manifests,
      Function<CommitQueue.Pending, Future<Void>> explain) {
    this.pool = pool;
    this.repository = repository;
    this.manifests = manifests;
    this.explain = explain;
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

    UUID transactionId() {
      return pending.request().transactionId();
    }
  }

  /**
   * Commits {@code batch} (in lock order); {@code release} once it no longer needs the pipeline.
   */
  Future<Void> run(List<CommitQueue.Pending> batch, Runnable release) {
    List<Entry> entries = new ArrayList<>();
    return pool.getConnection()
        .compose(
            conn -> {
              // BEGIN and the insert go out together (one round trip); BEGIN on a live connection
              // does not fail, and on a broken one neither runs.
              Future<?> begun = conn.query("BEGIN").execute();
              return repository
                  .insertToFinalize(conn, BatchCommitter.requests(batch))
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
    Map<UUID, CommitQueue.Pending> byTransaction = new HashMap<>();
    batch.forEach(pending -> byTransaction.put(pending.request().transactionId(), pending));
    List<Entry> copying = new ArrayList<>();
    for (VersionRepository.Inserted row : inserted) {
      Entry entry = new Entry(byTransaction.get(row.row().transactionId()), row);
      entries.add(entry);
      if (target(entry)) {
        copying.add(entry);
      }
    }
    List<Future<ObjectStore.ObjectInfo>> copies =
        Finalizer.createFinalAll(
            copying.stream().map(entry -> entry.target).toList(),
            copying.stream().map(Entry::transactionId).toList());
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
        rows.put(entry.transactionId(), entry.inserted.row());
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
    Map<UUID, Entry> byTransaction = new HashMap<>();
    entries.forEach(entry -> byTransaction.put(entry.transactionId(), entry));
    List<Future<Void>> answers = new ArrayList<>(batch.size());
    List<Manifests.Target> targets = new ArrayList<>();
    List<UUID> transactionIds = new ArrayList<>();
    List<Runnable> afterSettling = new ArrayList<>();
    for (CommitQueue.Pending pending : batch) {
      Entry entry = byTransaction.get(pending.request().transactionId());
      if (entry == null) {
        answers.add(explain.apply(pending));
      } else if (entry.failure != null) {
        pending.answer().tryFail(entry.failure);
      } else {
        CommitOutcome commit = new CommitOutcome(rows.get(entry.transactionId()), true);
        if (entry.target == null) {
          pending.answer().tryComplete(commit);
        } else {
          targets.add(entry.target);
          transactionIds.add(entry.transactionId());
          afterSettling.add(() -> pending.answer().tryComplete(commit));
        }
      }
    }
    if (!targets.isEmpty()) {
      answers.add(
          Finalizer.settleAll(targets, transactionIds)
              .onComplete(settled -> afterSettling.forEach(Runnable::run)));
    }
    return Future.join(answers).mapEmpty();
  }
}
