package dev.lvg.tenancy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.VertxInstances;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SharedLookupsTest {
  private final SharedLookups<String> lookups = new SharedLookups<>();
  private final List<Promise<String>> started = new ArrayList<>();

  private Future<String> lookUp() {
    Promise<String> promise = Promise.promise();
    started.add(promise);
    return promise.future();
  }

  @Test
  void requestsForOneKeyWhileItsLookupRunsShareThatLookup() {
    Future<String> first = lookups.join("k", 0, this::lookUp);
    Future<String> second = lookups.join("k", 0, this::lookUp);
    Future<String> other = lookups.join("other", 0, this::lookUp);
    assertThat(started).hasSize(2);
    assertThat(first.isComplete()).isFalse();

    started.get(0).complete("tenant-a");
    assertThat(first.result()).isEqualTo("tenant-a");
    assertThat(second.result()).isEqualTo("tenant-a");
    assertThat(other.isComplete()).as("another key's lookup is its own").isFalse();
    started.get(1).complete("tenant-b");
    assertThat(other.result()).isEqualTo("tenant-b");
    assertThat(lookups.running()).isZero();

    Future<String> later = lookups.join("k", 0, this::lookUp);
    assertThat(started).as("a lookup that ended is not shared with later requests").hasSize(3);
    started.get(2).complete("tenant-a2");
    assertThat(later.result()).isEqualTo("tenant-a2");
  }

  @Test
  void aRequestAfterTheCredentialsChangedNeverGetsAnAnswerReadBefore() {
    Future<String> before = lookups.join("k", 0, this::lookUp);
    Future<String> after = lookups.join("k", 1, this::lookUp);
    assertThat(started).hasSize(2);
    started.get(1).complete("new");
    started.get(0).complete("old");
    assertThat(before.result()).isEqualTo("old");
    assertThat(after.result()).isEqualTo("new");
    assertThat(lookups.running()).isZero();
  }

  @Test
  void aFailedLookupFailsEveryoneWaitingAndIsNotRemembered() {
    Future<String> first = lookups.join("k", 0, this::lookUp);
    Future<String> second = lookups.join("k", 0, this::lookUp);
    started.get(0).fail(new IllegalStateException("database down"));
    assertThat(first.cause()).hasMessage("database down");
    assertThat(second.cause()).hasMessage("database down");

    Future<String> thrown =
        lookups.join(
            "k",
            0,
            () -> {
              throw new IllegalStateException("pool closed");
            });
    assertThat(thrown.cause()).hasMessage("pool closed");
    assertThat(lookups.running()).isZero();
  }

  @Test
  void eachRequestHearsTheAnswerOnItsOwnEventLoop() throws Exception {
    Vertx vertx = Vertx.vertx();
    try {
      Context one = vertx.getOrCreateContext();
      Context two = vertx.getOrCreateContext();
      Promise<String> answer = Promise.promise();
      AtomicInteger lookUps = new AtomicInteger();
      CountDownLatch joined = new CountDownLatch(2);
      List<CompletableFuture<Boolean>> onOwnContext = new ArrayList<>();
      for (Context context : List.of(one, two)) {
        CompletableFuture<Boolean> heard = new CompletableFuture<>();
        onOwnContext.add(heard);
        context.runOnContext(
            now -> {
              lookups
                  .join(
                      "k",
                      0,
                      () -> {
                        lookUps.incrementAndGet();
                        return answer.future();
                      })
                  .onComplete(
                      result ->
                          heard.complete(result.succeeded() && Vertx.currentContext() == context));
              joined.countDown();
            });
      }
      assertThat(joined.await(10, TimeUnit.SECONDS)).isTrue();
      assertThat(lookUps.get()).isEqualTo(1);
      // Answered from a thread that is neither caller's.
      new Thread(() -> answer.complete("tenant")).start();
      for (CompletableFuture<Boolean> heard : onOwnContext) {
        assertThat(heard.get(10, TimeUnit.SECONDS)).isTrue();
      }
    } finally {
      VertxInstances.close(vertx);
    }
  }
}
