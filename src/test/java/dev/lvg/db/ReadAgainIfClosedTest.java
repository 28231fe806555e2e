package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.VertxInstances;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.ClosedConnectionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReadAgainIfClosedTest {
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() throws Exception {
    VertxInstances.close(vertx);
  }

  /** A read that fails with {@code failure} its first {@code failures} times, then answers. */
  private static Supplier<Future<String>> failingFirst(
      int failures, Throwable failure, AtomicInteger calls) {
    return () ->
        calls.incrementAndGet() <= failures
            ? Future.failedFuture(failure)
            : Future.succeededFuture("row");
  }

  private Throwable outcome(Supplier<Future<String>> read, StringBuilder answer) throws Exception {
    try {
      answer.append(
          Database.readAgainIfClosed(vertx, read)
              .toCompletionStage()
              .toCompletableFuture()
              .get(10, TimeUnit.SECONDS));
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  @Test
  void aReadThatMetAClosedConnectionTwiceIsAnsweredByTheThirdTry() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    StringBuilder answer = new StringBuilder();
    long started = System.nanoTime();

    Throwable failure = outcome(failingFirst(2, ClosedConnectionException.INSTANCE, calls), answer);

    assertThat(failure).isNull();
    assertThat(answer).hasToString("row");
    assertThat(calls).hasValue(3);
    // Each new try waits for the pool to let go of the closed connection.
    assertThat(System.nanoTime() - started)
        .isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
  }

  @Test
  void aThirdClosedConnectionIsTheAnswer() throws Exception {
    AtomicInteger calls = new AtomicInteger();

    Throwable failure =
        outcome(failingFirst(3, ClosedConnectionException.INSTANCE, calls), new StringBuilder());

    assertThat(failure).isSameAs(ClosedConnectionException.INSTANCE);
    assertThat(calls).hasValue(3);
  }

  @Test
  void anyOtherFailureIsNotTriedAgain() throws Exception {
    AtomicInteger calls = new AtomicInteger();
    IllegalStateException refused = new IllegalStateException("permission denied");

    Throwable failure = outcome(failingFirst(1, refused, calls), new StringBuilder());

    assertThat(failure).isSameAs(refused);
    assertThat(calls).hasValue(1);
  }
}
