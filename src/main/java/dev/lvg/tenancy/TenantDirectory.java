package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.LogBudget;
import dev.lvg.operation.Right;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.security.cert.X509Certificate;
import java.util.List;
import java.util.Set;
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
  static final Pattern TENANT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
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

  private final Pool pool;
  private final RememberedLookups cache;
  private final SharedLookups<Principal> keyLookups = new SharedLookups<>();
  private final SharedLookups<Found> nameLookups = new SharedLookups<>();
  private final SharedLookups<Access> accessLookups = new SharedLookups<>();
  private final SharedLookups<Principal> certificateLookups = new SharedLookups<>();
  private final long cacheNanos;

  public TenantDirectory(Pool pool) {
    this(pool, CACHE_NANOS);
  }

  /** Remembering resolved keys and tenants for {@code cacheNanos}. */
  TenantDirectory(Pool pool, long cacheNanos) {
    this.pool = pool;
    this.cacheNanos = cacheNanos;
    this.cache = new RememberedLookups();
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
    return cache.resolve(hash, Principal.class, keyLookups, readAt -> lookUpKey(hash, readAt));
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
              Set<Right> rights = Access.scopes(row.getArrayOfStrings("scopes"));
              Long expires = row.getLong("expires_millis");
              Tenant tenant = new Tenant(row.getLong("id"), row.getString("name"));
              String keyId = row.getString("key_id");
              return Grants.of(pool, tenant.id(), List.of("key:" + keyId))
                  .map(
                      grants -> {
                        Principal principal =
                            new Principal(
                                tenant,
                                Access.of(rights, grants),
                                keyId,
                                expires == null ? Principal.NEVER : expires);
                        long ttl =
                            expires == null
                                ? cacheNanos
                                : Math.min(
                                    cacheNanos,
                                    (expires - System.currentTimeMillis()) * 1_000_000L);
                        cache.remember(hash, principal, ttl, readAt);
                        pool.preparedQuery(TOUCH_KEY).execute(Tuple.of(hash));
                        return principal;
                      });
            });
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
    Object known = cache.recalled(apiKeyHash);
    return known instanceof Principal principal ? principal : null;
  }

  /**
   * Who a key was last resolved to, however long ago, without asking the database; null if never
   * (or since every resolution was forgotten). It authenticates nothing: it names whose load a
   * request is before the request is authenticated, so that a key whose resolution just aged out is
   * not counted as a tenant of its own.
   */
  public Tenant lastResolvedTenant(String apiKeyHash) {
    return cache.last(apiKeyHash) instanceof Principal principal ? principal.tenant() : null;
  }

  /**
   * Remembers, like a resolved key, the tenant a bearer token was verified for, so that {@link
   * #lastVerifiedTenant} names its load next time.
   */
  public void rememberVerifiedToken(String tokenHash, Principal principal) {
    cache.remember(TOKEN + tokenHash, principal, cacheNanos, cache.generation());
  }

  /** Who a bearer token was last verified for; like {@link #lastResolvedTenant} for keys. */
  public Tenant lastVerifiedTenant(String tokenHash) {
    return lastResolvedTenant(TOKEN + tokenHash);
  }

  /**
   * How many times everything remembered was forgotten: it moves whenever a credential or a tenant
   * changes on any gateway, so a holder of something long-lived (a live tail) checks its credential
   * again when it moves.
   */
  public long generation() {
    return cache.generation();
  }

  /** Whether changes are heard about now; while they are not, holders check again every second. */
  public boolean remembering() {
    return cache.remembering();
  }

  /** Forgets every resolved key and tenant: a credential or a tenant changed somewhere. */
  public void forgetAll() {
    cache.forgetAll();
  }

  /**
   * Whether resolved keys may be remembered: only while changes are heard about. Turning it off
   * forgets everything at once.
   */
  public void remember(boolean enabled) {
    cache.remembering(enabled);
  }

  /** The tenant of that name and whether it is disabled, or {@code null}; remembered like keys. */
  public Future<Found> byName(String name) {
    return cache.resolve(
        "name:" + name, Found.class, nameLookups, readAt -> lookUpName(name, readAt));
  }

  /**
   * Who a client certificate (already verified by the TLS handshake) acts as, remembered by its
   * fingerprint as keys are; see {@link ClientCertificates}.
   */
  public Future<Principal> authenticate(X509Certificate certificate) {
    String key = "cert:" + ClientCertificates.fingerprint(certificate);
    return cache.resolve(
        key,
        Principal.class,
        certificateLookups,
        readAt ->
            ClientCertificates.principal(pool, certificate)
                .onSuccess(principal -> cache.remember(key, principal, cacheNanos, readAt)));
  }

  /**
   * The access of a bearer token of {@code tenant} whose role claim holds {@code claims}: the
   * grants of those claim values and of the roles they are members of, remembered and forgotten as
   * keys are.
   */
  public Future<Access> accessOf(Tenant tenant, Set<Right> scopes, List<String> claims) {
    List<String> grantees = claims.stream().map(claim -> "claim:" + claim).sorted().toList();
    String key = "access:" + tenant.id() + ":" + scopes + ":" + String.join("\u001f", grantees);
    return cache.resolve(
        key,
        Access.class,
        accessLookups,
        readAt ->
            Grants.of(pool, tenant.id(), grantees)
                .map(
                    grants -> {
                      Access access = Access.of(scopes, grants);
                      cache.remember(key, access, cacheNanos, readAt);
                      return access;
                    }));
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
              cache.remember("name:" + name, found, cacheNanos, readAt);
              return found;
            });
  }

  /**
   * Makes sure the tenant exists and the key is valid for it (the bootstrap settings); safe to
   * repeat.
   */
  public Future<Tenant> ensureTenantWithKey(String tenantName, String apiKey) {
    return BootstrapTenant.ensure(pool, tenantName, apiKey);
  }
}
