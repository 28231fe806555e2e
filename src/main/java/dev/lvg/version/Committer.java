package dev.lvg.version;

import dev.lvg.metrics.GatewayMetrics;
import dev.lvg.storage.Manifests;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.util.ArrayList;
import java.util.List;

/**
 * The gateway's one commit pipeline: {@code version/create} requests from every event loop join one
 * {@link CommitQueue}, so concurrent creates share statements whichever loop took them. The queue
 * and its batches run on a context of their own, on one of the event loops the API verticles use
 * too (a thread per core, so a batch's hand-offs rarely wake a thread that must then wait for a
 * core); the answers go back to each request's own context.
 */
public final class Committer {
  private final Context context;
  private final CommitQueue queue;
  private final Manifests manifests;
  private final GatewayMetrics metrics;

  /** Built outside any verticle: the pipeline gets an event loop context of its own. */
  public Committer(
      Vertx vertx,
      Pool pool,
      VersionRepository repository,
      Manifests manifests,
      int batchesInFlight,
      int batchSize,
      boolean oneTenantPerBatch,
      GatewayMetrics metrics) {
    this.context = vertx.getOrCreateContext();
    this.manifests = manifests;
    this.metrics = metrics;
    this.queue =
        new CommitQueue(
            readingStaged(new VersionCommitter(vertx, pool, repository, manifests)),
            batchesInFlight,
            batchSize,
            oneTenantPerBatch,
            metrics::commitBatch);
    metrics.watchCommitQueue(queue::waiting);
  }

  /** Where the manifests of the versions it commits go. */
  public Manifests manifests() {
    return manifests;
  }

  /**
   * When finalizing, each batch first reads its requests' staging manifests (one call to the store
   * for the batch) for the Lance transactions they name, which a branch holds only once; a request
   * whose read failed is answered with the failure.
   */
  private CommitQueue.BatchRunner readingStaged(CommitQueue.BatchRunner runner) {
    if (!manifests.finalizes()) {
      return runner;
    }
    return (batch, release) -> {
      List<Future<Manifests.Staged>> staged =
          manifests.staged(
              batch.stream().map(pending -> pending.request().manifestPath()).toList());
      return Future.join(staged)
          .transform(
              read -> {
                List<CommitQueue.Pending> ready = new ArrayList<>(batch.size());
                for (int i = 0; i < batch.size(); i++) {
                  CommitQueue.Pending pending = batch.get(i);
                  if (staged.get(i).failed()) {
                    pending.answer().tryFail(staged.get(i).cause());
                    continue;
                  }
                  Manifests.Staged manifest = staged.get(i).result();
                  if (manifest.namesNone()) {
                    metrics.versionWithoutTransaction();
                  }
                  NewVersion request =
                      pending
                          .request()
                          .withStagedManifest(manifest.transaction(), manifest.unreadable());
                  ready.add(new CommitQueue.Pending(request, pending.answer()));
                }
                return ready.isEmpty() ? Future.succeededFuture() : runner.run(ready, release);
              });
    };
  }

  /** Commits a version; the answer completes on the caller's context. */
  public Future<Commit> submit(NewVersion request) {
    Context caller = Vertx.currentContext();
    Promise<Commit> answer = Promise.promise();
    context.runOnContext(
        start ->
            queue
                .submit(request)
                .onComplete(
                    result -> {
                      if (caller == null) {
                        answer.handle(result);
                      } else {
                        caller.runOnContext(back -> answer.handle(result));
                      }
                    }));
    return answer.future();
  }
}
