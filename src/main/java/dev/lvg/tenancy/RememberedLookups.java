package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.Futures;
import dev.lvg.http.LogBudget;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What credentials were resolved to (principals, tenants, a token's access), remembered for a short
 * time so the hot path does not pay a lookup per request, and forgotten at once when anything about
 * credentials changes ({@link #forgetAll}); while changes are not heard about, nothing is
 * remembered.
 */
final class RememberedLookups {
  private static final Logger LOG = LoggerFactory.getLogger(RememberedLookups.class);
  private static final LogBudget REFRESH_FAILURES = new LogBudget(1);
  private static final long RETRY_NANOS = 1_000_000_000L;
  private static final int CACHE_MAX_ENTRIES = 100_000;

  private record Cached(Object value, long refreshAt, long expiresAt) {
    Cached refreshAgainAt(long at) {
      return new Cached(value, at, expiresAt);
    }
  }

  private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
  private volatile boolean remembering = true;

  /**
   * Counts {@link #forgetAll} calls: a lookup that was in flight while credentials changed must not
   * remember what it read before the change.
   */
  private final AtomicLong generation = new AtomicLong();

  /**
   * What {@code key} stands for: remembered, or looked up by {@code lookUp} (given the cache's
   * generation, which it passes to {@link #remember}). A remembered answer past half its time is
   * still served, and one request looks it up again meanwhile, so a key in steady use never expires
   * under its requests; one that finds it gone (or disabled) forgets it, one that fails is tried
   * again a second later. Requests that find nothing remembered share one lookup per key.
   */
  <T> Future<T> resolve(
      String key, Class<T> kind, SharedLookups<T> shared, LongFunction<Future<T>> lookUp) {
    Cached cached = cache.get(key);
    long now = System.nanoTime();
    if (cached != null && kind.isInstance(cached.value) && cached.expiresAt - now > 0) {
      if (cached.refreshAt - now <= 0) {
        refresh(key, cached, now, lookUp);
      }
      return Future.succeededFuture(kind.cast(cached.value));
    }
    long readAt = generation.get();
    if (!remembering) {
      return lookUp.apply(readAt);
    }
    return shared.join(key, readAt, () -> lookUp.apply(readAt));
  }

  /** Looks a remembered answer up again (once): forgets it if gone or disabled, logs a failure. */
  private <T> void refresh(String key, Cached cached, long now, LongFunction<Future<T>> lookUp) {
    Cached refreshing = cached.refreshAgainAt(now + RETRY_NANOS);
    if (!cache.replace(key, cached, refreshing)) {
      return;
    }
    Futures.attempt(() -> lookUp.apply(generation.get()))
        .onComplete(result -> settle(key, refreshing, result));
  }

  private void settle(String key, Cached refreshing, AsyncResult<?> result) {
    Throwable failure = result.cause();
    if (failure == null ? result.result() == null : failure instanceof ApiException) {
      cache.remove(key, refreshing);
    } else if (failure != null && REFRESH_FAILURES.allows(System.currentTimeMillis())) {
      LOG.warn(
          "A remembered credential's lookup again failed, retried in 1 s: {}", failure.toString());
    }
  }

  /** What {@code key} was last resolved to, however long ago; null if never (or forgotten). */
  Object last(String key) {
    Cached cached = cache.get(key);
    return cached == null ? null : cached.value;
  }

  Object recalled(String key) {
    Cached cached = cache.get(key);
    return cached != null && cached.expiresAt - System.nanoTime() > 0 ? cached.value : null;
  }

  void remember(String key, Object value, long ttlNanos, long readAt) {
    if (!remembering || ttlNanos <= 0 || generation.get() != readAt) {
      return;
    }
    if (cache.size() >= CACHE_MAX_ENTRIES) {
      cache.clear();
    }
    long now = System.nanoTime();
    cache.put(key, new Cached(value, now + ttlNanos / 2, now + ttlNanos));
  }

  long generation() {
    return generation.get();
  }

  boolean remembering() {
    return remembering;
  }

  void forgetAll() {
    generation.incrementAndGet();
    cache.clear();
  }

  void remembering(boolean enabled) {
    remembering = enabled;
    if (!enabled) {
      forgetAll();
    }
  }
}
