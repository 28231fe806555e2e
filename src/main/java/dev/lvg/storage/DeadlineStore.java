package dev.lvg.storage;

import dev.lvg.http.DependencyException;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Puts a deadline on every call of a store, so that a stalled backend costs a request a bounded
 * time and answers 503. A call past its deadline may still finish later; finalization is safe with
 * that (see {@link ObjectStore}: a late final manifest carries its attempt's mark, and the next
 * holder of the slot replaces it).
 */
public final class DeadlineStore implements ObjectStore {
  private final ObjectStore store;
  private final long timeoutMillis;

  public DeadlineStore(ObjectStore store, long timeoutMillis) {
    this.store = store;
    this.timeoutMillis = timeoutMillis;
  }

  private <T> Future<T> bounded(String operation, Future<T> call) {
    return call.timeout(timeoutMillis, TimeUnit.MILLISECONDS)
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

  @Override
  public Future<Buffer> read(String key) {
    return bounded("read", store.read(key));
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
  public Future<Copy> createFinal(String staging, String finalKey, String attempt) {
    return bounded("copy", store.createFinal(staging, finalKey, attempt));
  }

  @Override
  public Future<Boolean> removeAbandoned(String finalKey) {
    return bounded("remove", store.removeAbandoned(finalKey));
  }

  @Override
  public Future<Void> settle(String staging, String finalKey, String attempt) {
    return bounded("settle", store.settle(staging, finalKey, attempt));
  }
}
