package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.IntStream;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Runs on an event loop of a Vert.x instance of its own per test, closed after it. */
@ExtendWith(VertxExtension.class)
class FuturesTest {
  private static final List<Integer> MANY = IntStream.range(0, 20_000).boxed().toList();

  private Vertx vertx;

  @BeforeEach
  void start(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Runs the sequence on an event loop, as the routes do; its outcome, or its failure. */
  private Object outcome(Function<Integer, Future<Integer>> step) throws Exception {
    CompletableFuture<Object> answer = new CompletableFuture<>();
    vertx.runOnContext(
        start ->
            Futures.sequence(MANY, step)
                .onComplete(
                    done -> answer.complete(done.succeeded() ? done.result() : done.cause())));
    return answer.get(30, TimeUnit.SECONDS);
  }

  /** A step that answers later, on the event loop, like a database call. */
  private Future<Integer> later(Integer item) {
    Promise<Integer> answer = Promise.promise();
    vertx.runOnContext(now -> answer.complete(item));
    return answer.future();
  }

  @Test
  void aFailureAtTheStartOfALongListOfLaterStepsIsTheOutcome() throws Exception {
    IllegalStateException failure = new IllegalStateException("first step");
    Object outcome =
        outcome(
            item ->
                item == 0
                    ? vertx.timer(1).compose(f -> Future.failedFuture(failure))
                    : later(item));
    assertThat(outcome).isSameAs(failure);
  }

  @Test
  void stepsRunInOrderEachAfterThePreviousOne() throws Exception {
    List<Integer> started = new ArrayList<>();
    Object outcome =
        outcome(
            item -> {
              started.add(item);
              return item % 2 == 0 ? later(item * 10) : Future.succeededFuture(item * 10);
            });
    assertThat(outcome).isEqualTo(MANY.stream().map(item -> item * 10).toList());
    assertThat(started).isEqualTo(MANY);
  }

  @Test
  void aFailureStopsTheSequenceAndLaterStepsDoNotStart() throws Exception {
    List<Integer> started = new ArrayList<>();
    IllegalArgumentException failure = new IllegalArgumentException("item 7");
    Object outcome =
        outcome(
            item -> {
              started.add(item);
              return item == 7 ? Future.failedFuture(failure) : later(item);
            });
    assertThat(outcome).isSameAs(failure);
    assertThat(started).hasSize(8);
  }

  @Test
  void aStepThatThrowsFailsTheSequence() throws Exception {
    Object outcome =
        outcome(
            item -> {
              if (item == 3) {
                throw new IllegalStateException("thrown by step 3");
              }
              return Future.succeededFuture(item);
            });
    assertThat(outcome)
        .asInstanceOf(InstanceOfAssertFactories.THROWABLE)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("thrown by step 3");
  }

  @Test
  void stepsThatCompleteAtOnceRunInALoop() throws Exception {
    assertThat(outcome(Future::succeededFuture)).isEqualTo(MANY);
  }

  @Test
  void anEmptyListSucceedsWithNothing() {
    assertThat(Futures.sequence(List.<Integer>of(), Future::succeededFuture).result()).isEmpty();
  }
}
