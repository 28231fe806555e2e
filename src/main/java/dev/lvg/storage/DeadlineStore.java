package dev.lvg.storage;

import dev.lvg.http.DependencyException;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Puts a deadline on every call of a store, so that a stalled backend costs a request a bounded
 * time and answers 503. A call past its deadline may still finish later; finalization is safe with
 * that (see {@link ObjectStore}: a late final manifest carries its transaction id's mark, and the
 * next holder of the slot replaces it).
 */
public final class DeadlineStore implements ObjectStore {
  private final ObjectStore store;
  private final long timeoutMillis;
  private final MeterRegistry registry;
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();

  /** Times every call in {@code registry} as {@code lvg_storage_seconds{operation, outcome}}. */
  public DeadlineStore(ObjectStore store, long timeoutMillis, MeterRegistry registry) {
    this.store = store;
    this.timeoutMillis = timeoutMillis;
    this.registry = registry;
  }

  private <T> Future<T> bounded(String operation, Future<T> call) {
    long start = System.nanoTime();
    return call.timeout(timeoutMillis, TimeUnit.MILLISECONDS)
        .onComplete(
            done ->
                timer(
                        operation,
                        done.succeeded()
                            ? "ok"
                            : done.cause() instanceof TimeoutException
                                ? "timeout"
                                : done.cause() instanceof NoSuchObjectException
                                    ? "absent"
                                    : "error")
                    .record(System.nanoTime() - start, TimeUnit.NANOSECONDS))
        .recover(
            failure ->
                Future.failedFuture(
                    failure instanceof TimeoutException
                        ? new DependencyException(
                            "storage backend",
                            operation + " took longer than " + timeoutMillis + " ms",
                            failure)
                        : failure));
  }

  private Timer timer(String operation, String outcome) {
    return timers.computeIfAbsent(
        operation + ' ' + outcome,
        key ->
            Timer.builder("lvg_storage")
                .description("storage calls by operation and outcome (ok, absent, error, timeout)")
                .tag("operation", operation)
                .tag("outcome", outcome)
                .serviceLevelObjectives(BUCKETS)
                .register(registry));
  }

  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(1000),
    Duration.ofMillis(5000)
  };

  @Override
  public Future<Buffer> read(String key) {
    return bounded("read", store.read(key));
  }

  @Override
  public Future<Range> readTail(String key, int length) {
    return bounded("read", store.readTail(key, length));
  }

  @Override
  public List<Future<Range>> readTails(List<String> keys, int length) {
    return store.readTails(keys, length).stream().map(tail -> bounded("read", tail)).toList();
  }

  @Override
  public Future<Range> readRange(String key, long offset, int length) {
    return bounded("read", store.readRange(key, offset, length));
  }

  @Override
  public Future<ObjectInfo> stat(String key) {
    return bounded("stat", store.stat(key));
  }

  @Override
  public Future<Void> deleteIfExists(String key) {
    return bounded("delete", store.deleteIfExists(key));
  }

  @Override
  public Future<Boolean> createIfAbsent(String key, Buffer bytes) {
    return bounded("create", store.createIfAbsent(key, bytes));
  }

  @Override
  public Future<Void> replace(String key, Buffer bytes) {
    return bounded("replace", store.replace(key, bytes));
  }

  @Override
  public Future<Set<String>> list(String directoryKey) {
    return bounded("list", store.list(directoryKey));
  }

  /** Unbounded: trees are deleted by a background job, never while a client waits. */
  @Override
  public Future<Long> deleteTree(String directoryKey) {
    return store.deleteTree(directoryKey);
  }

  @Override
  public Future<Copy> createFinal(String staging, String finalKey, String transactionId) {
    return bounded("copy", store.createFinal(staging, finalKey, transactionId));
  }

  @Override
  public List<Future<Copy>> createFinalAll(List<Placement> placements) {
    return store.createFinalAll(placements).stream().map(copy -> bounded("copy", copy)).toList();
  }

  @Override
  public Future<Boolean> removeAbandoned(String finalKey) {
    return bounded("remove", store.removeAbandoned(finalKey));
  }

  @Override
  public Future<Void> settle(String staging, String finalKey, String transactionId) {
    return bounded("settle", store.settle(staging, finalKey, transactionId));
  }

  @Override
  public Future<Void> settleAll(List<Placement> settlements) {
    return bounded("settle", store.settleAll(settlements));
  }
}
