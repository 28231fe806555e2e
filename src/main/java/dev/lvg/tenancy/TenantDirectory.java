package dev.lvg.tenancy;

import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * Tenants and their API keys. A key is only ever stored and compared as its SHA-256; resolved keys
 * are remembered for a short time so the hot path does not pay a lookup per request.
 */
public final class TenantDirectory {
  private static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final long CACHE_NANOS = 30_000_000_000L;
  private static final int CACHE_MAX_ENTRIES = 100_000;

  static final String FIND_BY_KEY =
      """
      SELECT t.id, t.name FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.key_hash = $1""";
  static final String FIND_BY_NAME = "SELECT id, name FROM tenants WHERE name = $1";
  static final String INSERT_TENANT =
      "INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING";
  static final String INSERT_KEY =
      """
      INSERT INTO api_keys (key_hash, tenant_id) SELECT $1, id FROM tenants WHERE name = $2
      ON CONFLICT (key_hash) DO NOTHING""";

  private record Cached(Tenant tenant, long expiresAt) {}

  private final Pool pool;
  private final ConcurrentHashMap<String, Cached> cache = new ConcurrentHashMap<>();

  public TenantDirectory(Pool pool) {
    this.pool = pool;
  }

  public static boolean isValidName(String name) {
    return name != null && TENANT_NAME.matcher(name).matches();
  }

  /** The tenant the key belongs to, or {@code null} when the key is unknown. */
  public Future<Tenant> authenticate(String apiKey) {
    String hash = hash(apiKey);
    return cached(hash, () -> pool.preparedQuery(FIND_BY_KEY).execute(Tuple.of(hash)));
  }

  /** The tenant a key was recently resolved to, without asking the database; null if unknown. */
  public Tenant recentlyAuthenticated(String apiKeyHash) {
    Cached cached = cache.get(apiKeyHash);
    return cached != null && cached.expiresAt - System.nanoTime() > 0 ? cached.tenant : null;
  }

  /** A tenant found by {@code lookup}, remembered under {@code key} while found. */
  private Future<Tenant> cached(
      String key, java.util.function.Supplier<Future<RowSet<Row>>> lookup) {
    long now = System.nanoTime();
    Cached cached = cache.get(key);
    if (cached != null && cached.expiresAt - now > 0) {
      return Future.succeededFuture(cached.tenant);
    }
    return lookup
        .get()
        .map(
            rows -> {
              Tenant tenant = first(rows);
              if (tenant != null) {
                if (cache.size() >= CACHE_MAX_ENTRIES) {
                  cache.clear();
                }
                cache.put(key, new Cached(tenant, now + CACHE_NANOS));
              }
              return tenant;
            });
  }

  /** The tenant of that name, or {@code null}; remembered for a short time like keys. */
  public Future<Tenant> byName(String name) {
    return cached("name:" + name, () -> pool.preparedQuery(FIND_BY_NAME).execute(Tuple.of(name)));
  }

  /** Makes sure the tenant exists and the key is valid for it; safe to repeat. */
  public Future<Tenant> ensureTenantWithKey(String tenantName, String apiKey) {
    if (!isValidName(tenantName)) {
      return Future.failedFuture(
          new IllegalArgumentException(
              "tenant name must match " + TENANT_NAME.pattern() + ": '" + tenantName + "'"));
    }
    String hash = hash(apiKey);
    return pool.withTransaction(
            conn ->
                conn.preparedQuery(INSERT_TENANT)
                    .execute(Tuple.of(tenantName))
                    .compose(
                        inserted ->
                            conn.preparedQuery(INSERT_KEY).execute(Tuple.of(hash, tenantName)))
                    .compose(inserted -> conn.preparedQuery(FIND_BY_KEY).execute(Tuple.of(hash))))
        .compose(
            rows -> {
              Tenant tenant = first(rows);
              if (tenant == null || !tenant.name().equals(tenantName)) {
                return Future.failedFuture(
                    new IllegalStateException(
                        "the API key given for tenant '"
                            + tenantName
                            + "' already belongs to another tenant"));
              }
              return Future.succeededFuture(tenant);
            });
  }

  private static Tenant first(RowSet<Row> rows) {
    var iterator = rows.iterator();
    if (!iterator.hasNext()) {
      return null;
    }
    Row row = iterator.next();
    return new Tenant(row.getLong(0), row.getString(1));
  }

  public static String hash(String apiKey) {
    return HexFormat.of().formatHex(SHA_256.get().digest(apiKey.getBytes(StandardCharsets.UTF_8)));
  }

  /** Looking a digest up costs more than using it; every thread keeps one. */
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is not available", e);
            }
          });
}
