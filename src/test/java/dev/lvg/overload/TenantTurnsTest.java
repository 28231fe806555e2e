package dev.lvg.overload;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Turns on the event loop of a Vert.x instance of its own per test, closed after it. */
@ExtendWith(VertxExtension.class)
class TenantTurnsTest {
  private Vertx vertx;

  @BeforeEach
  void start(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Runs {@code action} on an event loop and waits for it. */
  private <T> T onLoop(Supplier<T> action) throws Exception {
    CompletableFuture<T> result = new CompletableFuture<>();
    vertx.runOnContext(now -> result.complete(action.get()));
    return result.get(10, TimeUnit.SECONDS);
  }

  @Test
  void aTenantsTurnsRunOneAtATimeInOrderWhileOtherTenantsRunAtOnce() throws Exception {
    TenantTurns turns = new TenantTurns(10);
    List<String> started = new ArrayList<>();
    List<Promise<String>> running = new ArrayList<>();
    List<Future<String>> answers =
        onLoop(
            () -> {
              List<Future<String>> all = new ArrayList<>();
              for (String name : List.of("a1", "a2", "a3", "b1")) {
                long tenant = name.startsWith("a") ? 1 : 2;
                all.add(
                    turns.run(
                        tenant,
                        () -> {
                          started.add(name);
                          Promise<String> promise = Promise.promise();
                          running.add(promise);
                          return promise.future();
                        }));
              }
              return all;
            });
    assertThat(onLoop(() -> List.copyOf(started))).containsExactly("a1", "b1");
    assertThat(onLoop(() -> turns.waiting(1))).isEqualTo(2);
    onLoop(() -> running.get(0).tryComplete("a1 done"));
    assertThat(await(answers.get(0))).isEqualTo("a1 done");
    assertThat(onLoop(() -> List.copyOf(started))).containsExactly("a1", "b1", "a2");
    onLoop(() -> running.get(2).tryFail(new IllegalStateException("a2 failed")));
    assertThat(awaitFailure(answers.get(1))).hasMessage("a2 failed");
    assertThat(onLoop(() -> List.copyOf(started))).containsExactly("a1", "b1", "a2", "a3");
    onLoop(() -> running.get(3).tryComplete("a3 done"));
    onLoop(() -> running.get(1).tryComplete("b1 done"));
    assertThat(await(answers.get(2))).isEqualTo("a3 done");
    assertThat(await(answers.get(3))).isEqualTo("b1 done");
    assertThat(onLoop(() -> turns.waiting(1))).isZero();
  }

  @Test
  void aTurnThatThrowsEndsAndTheNextRuns() throws Exception {
    TenantTurns turns = new TenantTurns(10);
    Promise<String> first = Promise.promise();
    List<Future<String>> answers =
        onLoop(
            () ->
                List.of(
                    turns.run(7, () -> first.future()),
                    turns.<String>run(
                        7,
                        () -> {
                          throw new IllegalArgumentException("thrown");
                        }),
                    turns.run(7, () -> Future.succeededFuture("third"))));
    onLoop(() -> first.tryComplete("first"));
    assertThat(await(answers.get(0))).isEqualTo("first");
    assertThat(awaitFailure(answers.get(1))).hasMessage("thrown");
    assertThat(await(answers.get(2))).isEqualTo("third");
  }

  @Test
  void aTenantWithTooManyTurnsWaitingIsToldToSlowDown() throws Exception {
    TenantTurns turns = new TenantTurns(2);
    Promise<String> first = Promise.promise();
    List<Future<String>> answers =
        onLoop(
            () -> {
              List<Future<String>> all = new ArrayList<>();
              all.add(turns.run(3, () -> first.future()));
              for (int i = 0; i < 3; i++) {
                all.add(turns.run(3, () -> Future.succeededFuture("later")));
              }
              all.add(turns.run(4, () -> Future.succeededFuture("another tenant")));
              return all;
            });
    Throwable refused = awaitFailure(answers.get(3));
    assertThat(refused).isInstanceOf(ApiException.class).hasMessageContaining("Slow down");
    assertThat(((ApiException) refused).isShed()).isTrue();
    assertThat(await(answers.get(4))).isEqualTo("another tenant");
    onLoop(() -> first.tryComplete("first"));
    assertThat(await(answers.get(1))).isEqualTo("later");
    assertThat(await(answers.get(2))).isEqualTo("later");
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  private static Throwable awaitFailure(Future<?> future) throws Exception {
    CompletableFuture<Throwable> failure = new CompletableFuture<>();
    future.onComplete(done -> failure.complete(done.failed() ? done.cause() : null));
    return failure.get(10, TimeUnit.SECONDS);
  }
}
