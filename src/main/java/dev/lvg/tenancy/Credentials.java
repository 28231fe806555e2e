package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.operation.Right;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.security.SecureRandom;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.function.Function;

/**
 * Administration of tenants and their API keys. Every change notifies all gateways on the channel
 * {@value #CHANNEL} in the same transaction, so they forget what they remembered about credentials
 * as soon as it commits. A key's secret is shown once, when it is issued; only its SHA-256 is kept.
 */
public final class Credentials {
  public static final String CHANNEL = "lvg_credentials";

  static final String NOTIFY = "SELECT pg_notify('lvg_credentials', $1)";

  private static final String CREATE_TENANT =
      "INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id, name";
  private static final String SET_DISABLED =
      "UPDATE tenants SET disabled = $2 WHERE name = $1 RETURNING id";
  private static final String INSERT_KEY =
      """
      INSERT INTO api_keys (key_hash, tenant_id, key_id, scopes, expires_at, description)
      VALUES ($1, $2, $3, $4, $5, $6) RETURNING created_at""";
  private static final String KEYS =
      """
      SELECT k.key_id, k.scopes, k.created_at, k.last_used_at, k.expires_at, k.description
      FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE t.name = $1 ORDER BY k.created_at""";
  private static final String TENANT_EXISTS = "SELECT 1 FROM tenants WHERE name = $1";
  private static final String REVOKE =
      """
      DELETE FROM api_keys k USING tenants t
      WHERE t.id = k.tenant_id AND t.name = $1 AND k.key_id = $2 RETURNING k.tenant_id""";

  /**
   * Who makes a change, for the audit trail: "operator" for the admin key, a token's subject, or
   * the operating-system user of a command; and the request id, if any.
   */
  public record Changer(String credential, String requestId) {}

  /** A key just issued: the only time its secret is seen. */
  public record IssuedKey(KeyInfo info, String apiKey) {}

  /** What is known about a key; never its secret. Times in epoch milliseconds. */
  public record KeyInfo(
      String keyId,
      List<String> scopes,
      long createdAt,
      Long lastUsedAt,
      Long expiresAt,
      String description) {}

  private final Pool pool;
  private final SecureRandom random = new SecureRandom();

  public Credentials(Pool pool) {
    this.pool = pool;
  }

  /** Creates a tenant; 409 code 2 when it exists (a tenant is the outermost namespace). */
  public Future<Tenant> createTenant(Changer by, String name) {
    if (!TenantDirectory.isValidName(name)) {
      return Future.failedFuture(
          ApiException.invalidInput(
              "a tenant name is 1 to 64 letters, digits, '_', '.' or '-', starting with a letter"
                  + " or digit"));
    }
    return changing(
        by,
        name,
        GatewayOperation.CREATE_TENANT.id(),
        name,
        conn ->
            conn.preparedQuery(CREATE_TENANT)
                .execute(Tuple.of(name))
                .compose(
                    rows ->
                        rows.iterator().hasNext()
                            ? Future.succeededFuture(
                                new Tenant(
                                    rows.iterator().next().getLong("id"),
                                    rows.iterator().next().getString("name")))
                            : Future.failedFuture(
                                new ApiException(
                                    ErrorCode.NAMESPACE_ALREADY_EXISTS,
                                    "tenant '" + name + "' already exists"))));
  }

  /** Disables or enables a tenant: a disabled tenant's credentials all get 403 code 15. */
  public Future<Void> setDisabled(Changer by, String name, boolean disabled) {
    return changing(
        by,
        name,
        disabled ? GatewayOperation.DISABLE_TENANT.id() : GatewayOperation.ENABLE_TENANT.id(),
        name,
        conn ->
            conn.preparedQuery(SET_DISABLED)
                .execute(Tuple.of(name, disabled))
                .compose(
                    rows ->
                        rows.iterator().hasNext()
                            ? Future.succeededFuture()
                            : Future.failedFuture(noTenant(name))));
  }

  /** Issues a key that may do what {@code rights} says, valid until {@code expiresAt} if given. */
  public Future<IssuedKey> issueKey(
      Changer by, String tenant, KeyRights rights, Long expiresAtMillis, String description) {
    for (String role : rights.roles()) {
      Grants.checkGrantee("role:" + role, true);
    }
    byte[] secret = new byte[32];
    byte[] id = new byte[12];
    random.nextBytes(secret);
    random.nextBytes(id);
    String apiKey = "lvg_" + Base64.getUrlEncoder().withoutPadding().encodeToString(secret);
    String keyId = "k_" + HexFormat.of().formatHex(id);
    String[] scopes = rights.scopes().stream().map(Right::label).sorted().toArray(String[]::new);
    OffsetDateTime expires =
        expiresAtMillis == null
            ? null
            : OffsetDateTime.ofInstant(Instant.ofEpochMilli(expiresAtMillis), ZoneOffset.UTC);
    return changing(
        by,
        tenant,
        GatewayOperation.ISSUE_KEY.id(),
        keyId,
        conn ->
            conn.preparedQuery(TenantDirectory.TENANT_ID)
                .execute(Tuple.of(tenant))
                .compose(
                    found -> {
                      if (!found.iterator().hasNext()) {
                        return Future.failedFuture(noTenant(tenant));
                      }
                      long tenantId = found.iterator().next().getLong(0);
                      return conn.preparedQuery(INSERT_KEY)
                          .execute(
                              Tuple.of(
                                  KeyDigest.hash(apiKey),
                                  tenantId,
                                  keyId,
                                  scopes,
                                  expires,
                                  description))
                          .compose(rows -> scope(conn, tenantId, keyId, rights).map(rows));
                    })
                .map(
                    rows ->
                        new IssuedKey(
                            new KeyInfo(
                                keyId,
                                List.of(scopes),
                                millis(rows.iterator().next().getOffsetDateTime(0)),
                                null,
                                expiresAtMillis,
                                description),
                            apiKey)));
  }

  /** Gives the new key {@code keyId} its grants and roles, one statement after another. */
  private Future<Void> scope(SqlConnection conn, long tenantId, String keyId, KeyRights rights) {
    String grantee = "key:" + keyId;
    Future<Void> done = Future.succeededFuture();
    for (Access.Grant grant : rights.grants()) {
      String grantId = Grants.newGrantId();
      done = done.compose(previous -> Grants.insert(conn, tenantId, grantId, grantee, grant));
    }
    for (String role : rights.roles()) {
      done = done.compose(previous -> Grants.join(conn, tenantId, role, grantee));
    }
    return done;
  }

  /** The keys of a tenant, oldest first. */
  public Future<List<KeyInfo>> keys(String tenant) {
    return pool.preparedQuery(TENANT_EXISTS)
        .execute(Tuple.of(tenant))
        .compose(
            found ->
                found.iterator().hasNext()
                    ? pool.preparedQuery(KEYS).execute(Tuple.of(tenant))
                    : Future.failedFuture(noTenant(tenant)))
        .map(
            rows -> {
              List<KeyInfo> keys = new ArrayList<>();
              for (Row row : rows) {
                keys.add(
                    new KeyInfo(
                        row.getString("key_id"),
                        List.of(row.getArrayOfStrings("scopes")),
                        millis(row.getOffsetDateTime("created_at")),
                        millisOrNull(row.getOffsetDateTime("last_used_at")),
                        millisOrNull(row.getOffsetDateTime("expires_at")),
                        row.getString("description")));
              }
              return keys;
            });
  }

  /** Revokes a key; every gateway refuses it once this completes. False when there was none. */
  public Future<Boolean> revokeKey(Changer by, String tenant, String keyId) {
    return changing(
        by,
        tenant,
        GatewayOperation.REVOKE_KEY.id(),
        keyId,
        conn ->
            conn.preparedQuery(REVOKE)
                .execute(Tuple.of(tenant, keyId))
                .compose(
                    rows ->
                        rows.iterator().hasNext()
                            ? Grants.forget(conn, rows.iterator().next().getLong(0), "key:" + keyId)
                                .map(true)
                            : Future.succeededFuture(false)));
  }

  /**
   * Runs {@code change} to {@code tenant} in a transaction that also records it in the audit trail
   * (unless it answers {@code false}: nothing changed) and notifies every gateway.
   */
  private <T> Future<T> changing(
      Changer by,
      String tenant,
      String operation,
      String object,
      Function<SqlConnection, Future<T>> change) {
    return AdminChanges.changing(pool, by, tenant, operation, object, change);
  }

  static ApiException noTenant(String name) {
    return new ApiException(ErrorCode.NAMESPACE_NOT_FOUND, "tenant '" + name + "' does not exist");
  }

  private static long millis(OffsetDateTime time) {
    return time.toInstant().toEpochMilli();
  }

  private static Long millisOrNull(OffsetDateTime time) {
    return time == null ? null : millis(time);
  }
}
