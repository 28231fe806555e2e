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
public final class CommitPipeline {
  private final Context context;
  private final CommitQueue queue;
  private final Manifests manifests;
  private final GatewayMetrics metrics;

  /** Requests whose staging manifests are still to be read, on the pipeline's context. */
  private final List<Unread> unread = new ArrayList<>();

  private boolean reading;

  private record Unread(NewVersion request, Promise<CommitOutcome> answer) {}

  /** Built outside any verticle: the pipeline gets an event loop context of its own. */
  public CommitPipeline(
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
            new BatchCommitter(vertx, pool, repository, manifests),
            batchesInFlight,
            batchSize,
            oneTenantPerBatch,
            metrics::commitBatch);
    metrics.watchCommitQueue(() -> queue.waiting() + unread.size());
  }

  /** Where the manifests of the versions it commits go. */
  public Manifests manifests() {
    return manifests;
  }

  /** Commits a version; the answer completes on the caller's context. */
  public Future<CommitOutcome> submit(NewVersion request) {
    Context caller = Vertx.currentContext();
    Promise<CommitOutcome> answer = Promise.promise();
    context.runOnContext(
        start ->
            commit(request)
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

  /**
   * When finalizing, a request first has its staging manifest read for the Lance transaction it
   * names, which a branch holds only once. The requests that arrive while one read is under way are
   * read together by the next (one call to the store), so reading runs alongside the batches being
   * committed rather than in front of each; a request whose read failed is answered with the
   * failure.
   */
  private Future<CommitOutcome> commit(NewVersion request) {
    if (!manifests.finalizes()) {
      return queue.submit(request);
    }
    Promise<CommitOutcome> answer = Promise.promise();
    unread.add(new Unread(request, answer));
    readNext();
    return answer.future();
  }

  private void readNext() {
    if (reading || unread.isEmpty()) {
      return;
    }
    reading = true;
    List<Unread> group = new ArrayList<>(unread);
    unread.clear();
    List<Future<Manifests.Staged>> staged;
    try {
      staged =
          manifests.staged(
              group.stream().map(waiting -> waiting.request().manifestPath()).toList());
    } catch (RuntimeException failed) {
      // Never a request left unanswered, nor the reading stage stuck: the group gets the failure.
      reading = false;
      group.forEach(waiting -> waiting.answer().tryFail(failed));
      readNext();
      return;
    }
    Future.join(staged).onComplete(read -> context.runOnContext(back -> enqueue(group, staged)));
  }

  private void enqueue(List<Unread> group, List<Future<Manifests.Staged>> staged) {
    reading = false;
    for (int i = 0; i < group.size(); i++) {
      Unread waiting = group.get(i);
      if (staged.get(i).failed()) {
        waiting.answer().fail(staged.get(i).cause());
        continue;
      }
      Manifests.Staged manifest = staged.get(i).result();
      if (manifest.namesNone()) {
        metrics.versionWithoutTransaction();
      }
      queue
          .submit(
              waiting.request().withStagedManifest(manifest.transaction(), manifest.unreadable()))
          .onComplete(waiting.answer());
    }
    readNext();
  }
}
