package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Futures;
import dev.lvg.http.LogBudget;
import dev.lvg.operation.Right;
import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tenants and their API keys. A key is only ever stored and compared as its SHA-256; resolved keys
 * are remembered for a short time so the hot path does not pay a lookup per request, and forgotten
 * at once on every gateway when any credential or tenant changes ({@link #forgetAll}, driven by
 * PostgreSQL notifications); while those notifications cannot be received nothing is remembered.
 */
public final class TenantDirectory {
  private static final Logger LOG = LoggerFactory.getLogger(TenantDirectory.class);
  private static final LogBudget REFRESH_FAILURES = new LogBudget(1);
  private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final long CACHE_NANOS = 30_000_000_000L;
  private static final long RETRY_NANOS = 1_000_000_000L;
  private static final int CACHE_MAX_ENTRIES = 100_000;
  private static final String TOKEN = "token:";

  static final String FIND_BY_KEY =
      """
      SELECT t.id, t.name, t.disabled, k.scopes, k.key_id,
             (extract(epoch FROM k.expires_at) * 1000)::bigint AS expires_millis
      FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
      WHERE k.key_hash = $1 AND (k.expires_at IS NULL OR k.expires_at > statement_timestamp())""";
  static final String FIND_BY_NAME = "SELECT id, name, disabled FROM tenants WHERE name = $1";
  static final String TOUCH_KEY =
      "UPDATE api_keys SET last_used_at = statement_timestamp() WHERE key_hash = $1";

  static final String TENANT_ID = "SELECT id FROM tenants WHERE name = $1";

  /** A tenant found by name, and whether it is disabled. */
  public record Found(Tenant tenant, boolean disabled) {}

  private record Cached(Object value, long refreshAt, long expiresAt) {
    Cached refreshAgainAt(long at) {
      return new Cached(value, at, expiresAt);
    }
  }

  private final Pool pool;
  private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();
  private final SharedLookups<Principal> keyLookups = new SharedLookups<>();
  private final SharedLookups<Found> nameLookups = new SharedLookups<>();
  private final long cacheNanos;
  private volatile boolean remembering = true;

  /**
   * Counts {@link #forgetAll} calls: a lookup that was in flight while credentials changed must not
   * remember what it read before the change.
   */
  private final AtomicLong generation = new AtomicLong();

  public TenantDirectory(Pool pool) {
    this(pool, CACHE_NANOS);
  }

  /** Remembering resolved keys and tenants for {@code cacheNanos}. */
  TenantDirectory(Pool pool, long cacheNanos) {
    this.pool = pool;
    this.cacheNanos = cacheNanos;
  }

  public static boolean isValidName(String name) {
    return name != null && TENANT_NAME.matcher(name).matches();
  }

  /**
   * Who the key acts as, or {@code null} when it is unknown, revoked or expired; fails with 403
   * code 15 when its tenant is disabled.
   */
  public Future<Principal> authenticate(String apiKey) {
    String hash = KeyDigest.hash(apiKey);
    return resolve(hash, Principal.class, keyLookups, readAt -> lookUpKey(hash, readAt));
  }

  private Future<Principal> lookUpKey(String hash, long readAt) {
    return pool.preparedQuery(FIND_BY_KEY)
        .execute(Tuple.of(hash))
        .compose(
            rows -> {
              if (!rows.iterator().hasNext()) {
                return Future.succeededFuture(null);
              }
              Row row = rows.iterator().next();
              if (row.getBoolean("disabled")) {
                return Future.failedFuture(disabled(row.getString("name")));
              }
              Set<Right> rights = EnumSet.noneOf(Right.class);
              for (String scope : row.getArrayOfStrings("scopes")) {
                Right right = Right.of(scope);
                if (right != null && right != Right.ADMIN) {
                  rights.add(right);
                }
              }
              Long expires = row.getLong("expires_millis");
              Principal principal =
                  new Principal(
                      new Tenant(row.getLong("id"), row.getString("name")),
                      Set.copyOf(rights),
                      row.getString("key_id"),
                      expires == null ? Principal.NEVER : expires);
              long ttl =
                  expires == null
                      ? cacheNanos
                      : Math.min(cacheNanos, (expires - System.currentTimeMillis()) * 1_000_000L);
              remember(hash, principal, ttl, readAt);
              pool.preparedQuery(TOUCH_KEY).execute(Tuple.of(hash));
              return Future.succeededFuture(principal);
            });
  }

  /**
   * What {@code key} stands for: remembered, or looked up by {@code lookUp} (given the cache's
   * generation, which it passes to {@link #remember}). A remembered answer past half its time is
   * still served, and one request looks it up again meanwhile, so a key in steady use never expires
   * under its requests; one that finds it gone (or disabled) forgets it, one that fails is tried
   * again a second later. Requests that find nothing remembered share one lookup per key.
   */
  private <T> Future<T> resolve(
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

  static ApiException disabled(String tenant) {
    return new ApiException(
        ErrorCode.PERMISSION_DENIED, "tenant '" + tenant + "' is disabled on this gateway");
  }

  /**
   * Who a key was recently resolved to, without asking the database; null if unknown. A seam for
   * the tests of key expiry: requests go through {@link #authenticate}.
   */
  Principal recentlyAuthenticated(String apiKeyHash) {
    Object known = recalled(apiKeyHash);
    return known instanceof Principal principal ? principal : null;
  }

  /**
   * Who a key was last resolved to, however long ago, without asking the database; null if never
   * (or since every resolution was forgotten). It authenticates nothing: it names whose load a
   * request is before the request is authenticated, so that a key whose resolution just aged out is
   * not counted as a tenant of its own.
   */
  public Tenant lastResolvedTenant(String apiKeyHash) {
    Cached cached = cache.get(apiKeyHash);
    return cached != null && cached.value instanceof Principal principal
        ? principal.tenant()
        : null;
  }

  /**
   * Remembers, like a resolved key, the tenant a bearer token was verified for, so that {@link
   * #lastVerifiedTenant} names its load next time.
   */
  public void rememberVerifiedToken(String tokenHash, Principal principal) {
    remember(TOKEN + tokenHash, principal, cacheNanos, generation.get());
  }

  /** Who a bearer token was last verified for; like {@link #lastResolvedTenant} for keys. */
  public Tenant lastVerifiedTenant(String tokenHash) {
    return lastResolvedTenant(TOKEN + tokenHash);
  }

  private Object recalled(String key) {
    Cached cached = cache.get(key);
    return cached != null && cached.expiresAt - System.nanoTime() > 0 ? cached.value : null;
  }

  private void remember(String key, Object value, long ttlNanos, long readAt) {
    if (!remembering || ttlNanos <= 0 || generation.get() != readAt) {
      return;
    }
    if (cache.size() >= CACHE_MAX_ENTRIES) {
      cache.clear();
    }
    long now = System.nanoTime();
    cache.put(key, new Cached(value, now + ttlNanos / 2, now + ttlNanos));
  }

  /**
   * How many times everything remembered was forgotten: it moves whenever a credential or a tenant
   * changes on any gateway, so a holder of something long-lived (a live tail) checks its credential
   * again when it moves.
   */
  public long generation() {
    return generation.get();
  }

  /** Whether changes are heard about now; while they are not, holders check again every second. */
  public boolean remembering() {
    return remembering;
  }

  /** Forgets every resolved key and tenant: a credential or a tenant changed somewhere. */
  public void forgetAll() {
    generation.incrementAndGet();
    cache.clear();
  }

  /**
   * Whether resolved keys may be remembered: only while changes are heard about. Turning it off
   * forgets everything at once.
   */
  public void remember(boolean enabled) {
    remembering = enabled;
    if (!enabled) {
      forgetAll();
    }
  }

  /** The tenant of that name and whether it is disabled, or {@code null}; remembered like keys. */
  public Future<Found> byName(String name) {
    return resolve("name:" + name, Found.class, nameLookups, readAt -> lookUpName(name, readAt));
  }

  private Future<Found> lookUpName(String name, long readAt) {
    return pool.preparedQuery(FIND_BY_NAME)
        .execute(Tuple.of(name))
        .map(
            rows -> {
              if (!rows.iterator().hasNext()) {
                return null;
              }
              Row row = rows.iterator().next();
              Found found =
                  new Found(
                      new Tenant(row.getLong("id"), row.getString("name")),
                      row.getBoolean("disabled"));
              remember("name:" + name, found, cacheNanos, readAt);
              return found;
            });
  }

  /**
   * Makes sure the tenant exists and the key is valid for it (the bootstrap settings); safe to
   * repeat.
   */
  public Future<Tenant> ensureTenantWithKey(String tenantName, String apiKey) {
    if (!isValidName(tenantName)) {
      return Future.failedFuture(
          new IllegalArgumentException(
              "tenant name must match " + TENANT_NAME.pattern() + ": '" + tenantName + "'"));
    }
    return BootstrapTenant.ensure(pool, tenantName, KeyDigest.hash(apiKey));
  }
}
