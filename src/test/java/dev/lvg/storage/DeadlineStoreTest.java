package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.http.ErrorCode;
import dev.lvg.http.Failures;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.lang.reflect.Proxy;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A store that never answers costs a call its deadline, and the client 503 code 17. */
class DeadlineStoreTest {
  private final Vertx vertx = Vertx.vertx();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  @AfterEach
  void close() {
    vertx.close();
  }

  /** A store whose every call stays pending forever, on a Vert.x context. */
  private ObjectStore stalled() {
    return (ObjectStore)
        Proxy.newProxyInstance(
            ObjectStore.class.getClassLoader(),
            new Class<?>[] {ObjectStore.class},
            (proxy, method, args) ->
                ((io.vertx.core.internal.ContextInternal) vertx.getOrCreateContext())
                    .promise()
                    .future());
  }

  @Test
  void aStalledCallFailsAtItsDeadlineAsAnOutage() throws Exception {
    ObjectStore store = new DeadlineStore(stalled(), 200, registry);
    long start = System.nanoTime();
    Throwable failure =
        store
            .createFinal("staging", "final", "attempt")
            .map(copy -> (Throwable) null)
            .otherwise(error -> error)
            .toCompletionStage()
            .toCompletableFuture()
            .get(5, TimeUnit.SECONDS);
    long elapsedMillis = (System.nanoTime() - start) / 1_000_000;
    assertThat(elapsedMillis).isBetween(150L, 3_000L);
    Failures.Failure classified = Failures.classify(failure);
    assertThat(classified.kind()).isEqualTo(Failures.Kind.UNAVAILABLE);
    assertThat(classified.error().errorCode()).isEqualTo(ErrorCode.SERVICE_UNAVAILABLE);
    assertThat(
            registry
                .get("lvg_storage")
                .tag("operation", "copy")
                .tag("outcome", "timeout")
                .timer()
                .count())
        .isEqualTo(1);
  }

  @Test
  void aCallInTimePassesThrough() throws Exception {
    ObjectStore answering =
        (ObjectStore)
            Proxy.newProxyInstance(
                ObjectStore.class.getClassLoader(),
                new Class<?>[] {ObjectStore.class},
                (proxy, method, args) -> {
                  Promise<Buffer> promise =
                      ((io.vertx.core.internal.ContextInternal) vertx.getOrCreateContext())
                          .promise();
                  promise.complete(Buffer.buffer("bytes"));
                  return promise.future();
                });
    Future<Buffer> read = new DeadlineStore(answering, 200, registry).read("key");
    assertThat(read.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS).toString())
        .isEqualTo("bytes");
  }
}
