package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.audit.Actor;
import dev.lvg.http.TableId;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class CommitQueueTest {
  /** A runner whose batches finish when the test says so. */
  private static final class ManualRunner implements CommitQueue.BatchRunner {
    final List<List<CommitQueue.Pending>> batches = new ArrayList<>();
    final List<Promise<Void>> running = new ArrayList<>();
    final List<Runnable> releases = new ArrayList<>();

    @Override
    public Future<Void> run(List<CommitQueue.Pending> batch, Runnable release) {
      batches.add(batch);
      releases.add(release);
      Promise<Void> done = Promise.promise();
      running.add(done);
      return done.future();
    }

    void finish(int index) {
      for (CommitQueue.Pending pending : batches.get(index)) {
        pending
            .answer()
            .tryComplete(
                new CommitOutcome(
                    new TableVersion(
                        pending.request().version(),
                        "p",
                        "p",
                        null,
                        null,
                        null,
                        pending.request().transactionId(),
                        0,
                        null),
                    true));
      }
      running.get(index).complete();
    }
  }

  private static NewVersion request(long tenant, String table, long version) {
    return new NewVersion(
        Actor.of(new Tenant(tenant, "t" + tenant), "k_test", "r1"),
        TableId.of(List.of("ns", table)),
        version,
        "main",
        "p" + version,
        null,
        null,
        null,
        null,
        UUID.randomUUID(),
        null,
        null);
  }

  private static List<Long> versions(List<CommitQueue.Pending> batch) {
    return batch.stream().map(pending -> pending.request().version()).toList();
  }

  @Test
  void anIdleQueueSendsARequestAtOnce() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 1, 8, false, size -> {});
    Future<CommitOutcome> answer = queue.submit(request(1, "a", 1));
    assertThat(runner.batches).hasSize(1);
    runner.finish(0);
    assertThat(answer.result().version().version()).isEqualTo(1);
  }

  @Test
  void requestsArrivingWhileBatchesRunFormTheNextBatch() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 1, 3, false, size -> {});
    queue.submit(request(1, "a", 1));
    for (int i = 0; i < 5; i++) {
      queue.submit(request(1, "t" + i, 10 + i));
    }
    assertThat(runner.batches).hasSize(1);
    assertThat(queue.waiting()).isEqualTo(5);
    runner.finish(0);
    assertThat(versions(runner.batches.get(1))).containsExactly(10L, 11L, 12L);
    runner.finish(1);
    assertThat(versions(runner.batches.get(2))).containsExactly(13L, 14L);
    runner.finish(2);
    assertThat(queue.waiting()).isZero();
  }

  @Test
  void aBatchHoldsOneRequestPerChain() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 1, 10, false, size -> {});
    queue.submit(request(1, "busy", 1));
    queue.submit(request(1, "a", 5));
    queue.submit(request(1, "a", 6));
    queue.submit(request(2, "a", 7));
    queue.submit(request(1, "b", 8));
    runner.finish(0);
    assertThat(versions(runner.batches.get(1))).containsExactly(5L, 7L, 8L);
    runner.finish(1);
    assertThat(versions(runner.batches.get(2))).containsExactly(6L);
  }

  @Test
  void onADistributedDatabaseABatchHoldsOneTenant() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 1, 10, true, size -> {});
    queue.submit(request(1, "busy", 1));
    queue.submit(request(1, "a", 5));
    queue.submit(request(2, "a", 7));
    queue.submit(request(1, "b", 8));
    queue.submit(request(2, "b", 9));
    runner.finish(0);
    assertThat(versions(runner.batches.get(1))).containsExactly(5L, 8L);
    runner.finish(1);
    assertThat(versions(runner.batches.get(2))).containsExactly(7L, 9L);
  }

  @Test
  void severalBatchesRunAtOnceUpToTheLimit() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 2, 1, false, size -> {});
    queue.submit(request(1, "a", 1));
    queue.submit(request(1, "b", 2));
    queue.submit(request(1, "c", 3));
    assertThat(runner.batches).hasSize(2);
    runner.finish(1);
    assertThat(runner.batches).hasSize(3);
  }

  @Test
  void aBatchThatReleasesThePipelineLetsTheNextStartBeforeItsAnswersAndOnlyOnce() {
    ManualRunner runner = new ManualRunner();
    CommitQueue queue = new CommitQueue(runner, 1, 1, false, size -> {});
    Future<CommitOutcome> first = queue.submit(request(1, "a", 1));
    queue.submit(request(1, "b", 2));
    queue.submit(request(1, "c", 3));
    assertThat(runner.batches).hasSize(1);
    runner.releases.get(0).run();
    runner.releases.get(0).run();
    assertThat(runner.batches).hasSize(2);
    assertThat(first.isComplete()).isFalse();
    runner.finish(0);
    assertThat(first.succeeded()).isTrue();
    assertThat(runner.batches).as("the first batch's end frees no second place").hasSize(2);
    runner.finish(1);
    assertThat(runner.batches).hasSize(3);
  }

  @Test
  void aBatchThatEndsWithoutAnsweringFailsItsRequestsInsteadOfLeavingThemHanging() {
    CommitQueue failing =
        new CommitQueue((batch, release) -> Future.failedFuture("boom"), 1, 4, false, size -> {});
    assertThat(failing.submit(request(1, "a", 1)).cause()).hasMessage("boom");
    CommitQueue silent =
        new CommitQueue((batch, release) -> Future.succeededFuture(), 1, 4, false, size -> {});
    assertThat(silent.submit(request(1, "a", 1)).failed()).isTrue();
    CommitQueue throwing =
        new CommitQueue(
            (batch, release) -> {
              throw new IllegalStateException("bug");
            },
            1,
            4,
            false,
            size -> {});
    assertThat(throwing.submit(request(1, "a", 1)).cause()).hasMessage("bug");
    assertThat(throwing.waiting()).isZero();
  }
}
