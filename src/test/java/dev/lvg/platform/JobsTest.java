package dev.lvg.platform;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Jobs on a Vert.x instance of their own per test, closed after it. */
@ExtendWith(VertxExtension.class)
class JobsTest {
  private Vertx vertx;
  private SimpleMeterRegistry registry;
  private Jobs jobs;

  @BeforeEach
  void start(Vertx vertx) {
    this.vertx = vertx;
    this.registry = new SimpleMeterRegistry();
    this.jobs = new Jobs(vertx, registry);
  }

  private double runs(String job, String outcome) {
    return registry.get("lvg_job_runs").tag("job", job).tag("outcome", outcome).counter().count();
  }

  private static void await(Future<?> future) throws Exception {
    future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aRunInProgressSeesTheJobsStopping() throws Exception {
    Promise<Void> release = Promise.promise();
    AtomicReference<Boolean> seen = new AtomicReference<>();
    jobs.every(
        "long", 1, 60_000, () -> release.future().onComplete(done -> seen.set(jobs.stopping())));
    assertThat(jobs.stopping()).isFalse();
    await(vertx.timer(100));
    Future<Void> stopped = jobs.stop(1000);
    release.complete();
    await(stopped);
    assertThat(seen.get()).as("the run saw the stop begin").isTrue();
  }

  @Test
  void aTickRunsEveryPeriodAndAThrowingTickCountsAsFailed() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    jobs.tick(
        "tick",
        5,
        () -> {
          if (calls.incrementAndGet() % 2 == 0) {
            throw new IllegalStateException("every other tick");
          }
        });
    await(vertx.timer(300));
    await(jobs.stop(1000));
    int ran = calls.get();
    assertThat(ran).isGreaterThan(4);
    assertThat(runs("tick", "succeeded")).isEqualTo(ran - ran / 2);
    assertThat(runs("tick", "failed")).isEqualTo(ran / 2);
  }

  @Test
  void aJobRunsFirstThenPeriodicallyAndEachRunIsCountedByHowItEnded() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    jobs.every(
        "alternating",
        1,
        5,
        () ->
            calls.incrementAndGet() % 2 == 0
                ? Future.failedFuture(new IllegalStateException("every other run"))
                : Future.succeededFuture());
    await(vertx.timer(300));
    await(jobs.stop(1000));
    int ran = calls.get();
    assertThat(ran).isGreaterThan(4);
    assertThat(runs("alternating", "succeeded") + runs("alternating", "failed")).isEqualTo(ran);
    assertThat(runs("alternating", "failed")).isEqualTo(ran / 2);
    await(vertx.timer(100));
    assertThat(calls.get()).as("no run after the stop").isEqualTo(ran);
  }

  @Test
  void aTickWhileTheLastRunIsInProgressIsSkippedNotRunTwice() throws Exception {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    jobs.every(
        "slow",
        1,
        2,
        () -> {
          most.accumulateAndGet(running.incrementAndGet(), Math::max);
          return vertx.timer(30).onComplete(done -> running.decrementAndGet());
        });
    await(vertx.timer(300));
    await(jobs.stop(1000));
    assertThat(most.get()).isEqualTo(1);
    assertThat(runs("slow", "skipped")).isGreaterThan(0);
  }

  @Test
  void aRunThatThrowsIsCountedAsFailedAndTheJobGoesOn() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    jobs.every(
        "throws",
        1,
        5,
        () -> {
          calls.incrementAndGet();
          throw new IllegalStateException("thrown, not failed");
        });
    await(vertx.timer(200));
    await(jobs.stop(1000));
    assertThat(calls.get()).isGreaterThan(2);
    assertThat(runs("throws", "failed")).isEqualTo(calls.get());
  }

  @Test
  void stopWaitsForEveryRunInProgress() throws Exception {
    List<String> ended = Collections.synchronizedList(new ArrayList<>());
    AtomicReference<Promise<Void>> firstRun = new AtomicReference<>();
    AtomicReference<Promise<Void>> secondRun = new AtomicReference<>();
    jobs.every("first", 1, 60_000, () -> started(firstRun, ended, "first"));
    jobs.every("second", 1, 60_000, () -> started(secondRun, ended, "second"));
    await(vertx.timer(100));
    assertThat(jobs.names()).containsExactly("first", "second");
    Future<Void> stopped = jobs.stop(5000);
    await(vertx.timer(50));
    assertThat(stopped.isComplete()).as("waits for the runs in progress").isFalse();
    vertx.runOnContext(now -> firstRun.get().complete());
    await(vertx.timer(50));
    assertThat(stopped.isComplete()).as("the second run is still in progress").isFalse();
    vertx.runOnContext(now -> secondRun.get().complete());
    await(stopped);
    assertThat(ended).containsExactly("first", "second");
  }

  @Test
  void stopGivesUpOnARunThatOutlastsTheGrace() throws Exception {
    jobs.every("never-ends", 1, 60_000, () -> Promise.<Void>promise().future());
    await(vertx.timer(50));
    long started = System.nanoTime();
    await(jobs.stop(200));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isBetween(150L, 5000L);
  }

  private static Future<Void> started(
      AtomicReference<Promise<Void>> run, List<String> ended, String name) {
    Promise<Void> promise = Promise.promise();
    run.set(promise);
    return promise.future().onComplete(done -> ended.add(name));
  }
}
