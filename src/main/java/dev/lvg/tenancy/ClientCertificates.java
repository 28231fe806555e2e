package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.Credentials.Changer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.cert.CertificateEncodingException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import javax.security.auth.x500.X500Principal;

/**
 * Client certificates under mutual TLS. The TLS handshake has already checked a certificate against
 * the client CA (signature, validity); here it becomes a principal: its identities, the subject
 * (RFC 2253) then each subject alternative name ({@code dns:}, {@code ip:}, {@code uri:}, {@code
 * email:}), are looked up among those the admin API registered for a tenant, and the first found
 * acts as the grantee {@code cert:<identity>}, with that grantee's grants. A certificate whose
 * SHA-256 fingerprint was revoked is refused whatever its identity.
 */
public final class ClientCertificates {
  private static final String FIND =
      """
      SELECT c.identity, t.id, t.name, t.disabled,
             EXISTS (SELECT 1 FROM revoked_certificates r WHERE r.fingerprint = $2) AS revoked
      FROM client_certificates c JOIN tenants t ON t.id = c.tenant_id
      WHERE c.identity = ANY($1) ORDER BY array_position($1, c.identity) LIMIT 1""";
  private static final String REVOKED = "SELECT 1 FROM revoked_certificates WHERE fingerprint = $1";
  private static final String REGISTER =
      """
      INSERT INTO client_certificates (identity, tenant_id) VALUES ($1, $2)
      ON CONFLICT (identity) DO NOTHING RETURNING identity""";
  private static final String REMOVE =
      "DELETE FROM client_certificates WHERE identity = $1 AND tenant_id = $2 RETURNING identity";
  private static final String REVOKE =
      """
      INSERT INTO revoked_certificates (fingerprint, tenant_id) VALUES ($1, $2)
      ON CONFLICT (fingerprint) DO NOTHING""";
  private static final String LIST =
      """
      SELECT 'identity' AS kind, identity AS value FROM client_certificates WHERE tenant_id = $1
      UNION ALL
      SELECT 'revoked', fingerprint FROM revoked_certificates WHERE tenant_id = $1
      ORDER BY 1, 2""";

  /** A tenant's registered identities and the fingerprints it revoked. */
  public record Listed(List<String> identities, List<String> revoked) {}

  private final Pool pool;

  public ClientCertificates(Pool pool) {
    this.pool = pool;
  }

  /**
   * Who {@code certificate} acts as; fails with 401 code 16 when it is revoked or none of its
   * identities is registered, 403 code 15 when its tenant is disabled.
   */
  static Future<Principal> principal(SqlClient db, X509Certificate certificate) {
    String fingerprint = fingerprint(certificate);
    return db.preparedQuery(FIND)
        .execute(
            Tuple.tuple()
                .addArrayOfString(identities(certificate).toArray(String[]::new))
                .addString(fingerprint))
        .compose(
            rows -> {
              if (!rows.iterator().hasNext()) {
                return db.preparedQuery(REVOKED)
                    .execute(Tuple.of(fingerprint))
                    .compose(
                        revoked ->
                            Future.failedFuture(
                                ApiException.unauthenticated(
                                    revoked.size() > 0
                                        ? "this client certificate is revoked"
                                        : "no identity of this client certificate is registered")));
              }
              Row row = rows.iterator().next();
              if (row.getBoolean("revoked")) {
                return Future.failedFuture(
                    ApiException.unauthenticated("this client certificate is revoked"));
              }
              if (row.getBoolean("disabled")) {
                return Future.failedFuture(TenantDirectory.disabled(row.getString("name")));
              }
              Tenant tenant = new Tenant(row.getLong("id"), row.getString("name"));
              String grantee = "cert:" + row.getString("identity");
              return Grants.of(db, tenant.id(), List.of(grantee))
                  .map(
                      grants ->
                          new Principal(
                              tenant,
                              Access.of(Set.of(), grants),
                              grantee,
                              certificate.getNotAfter().getTime()));
            });
  }

  /** Registers {@code identity} for {@code tenant}; 409 code 2 when any tenant has it. */
  public Future<Void> register(Changer by, String tenant, String identity) {
    checkIdentity(identity);
    return change(
        by,
        tenant,
        GatewayOperation.REGISTER_CERTIFICATE,
        identity,
        (conn, id) ->
            conn.preparedQuery(REGISTER)
                .execute(Tuple.of(identity, id))
                .compose(
                    rows ->
                        rows.size() > 0
                            ? Future.succeededFuture()
                            : Future.failedFuture(
                                new ApiException(
                                    ErrorCode.NAMESPACE_ALREADY_EXISTS,
                                    "the identity '" + identity + "' is already registered"))));
  }

  /** Removes a registered identity of {@code tenant}; false when it had none such. */
  public Future<Boolean> remove(Changer by, String tenant, String identity) {
    return change(
        by,
        tenant,
        GatewayOperation.REMOVE_CERTIFICATE,
        identity,
        (conn, id) ->
            conn.preparedQuery(REMOVE)
                .execute(Tuple.of(identity, id))
                .map(rows -> rows.size() > 0));
  }

  /** Revokes the certificate of {@code fingerprint} (SHA-256, hex): refused on every gateway. */
  public Future<Void> revoke(Changer by, String tenant, String fingerprint) {
    String normalized = fingerprint.replace(":", "").toLowerCase(java.util.Locale.ROOT);
    if (!normalized.matches("[0-9a-f]{64}")) {
      throw ApiException.invalidInput(
          "'fingerprint' is a certificate's SHA-256 in hex (64 digits, colons allowed)");
    }
    return change(
        by,
        tenant,
        GatewayOperation.REVOKE_CERTIFICATE,
        normalized,
        (conn, id) -> conn.preparedQuery(REVOKE).execute(Tuple.of(normalized, id)).mapEmpty());
  }

  /** The identities {@code tenant} registered and the fingerprints it revoked. */
  public Future<Listed> list(String tenant) {
    return Grants.tenantId(pool, tenant)
        .compose(id -> pool.preparedQuery(LIST).execute(Tuple.of(id)))
        .map(
            rows -> {
              List<String> identities = new ArrayList<>();
              List<String> revoked = new ArrayList<>();
              for (Row row : rows) {
                (row.getString("kind").equals("revoked") ? revoked : identities)
                    .add(row.getString("value"));
              }
              return new Listed(identities, revoked);
            });
  }

  /** The identities of {@code certificate}, the subject first. */
  public static List<String> identities(X509Certificate certificate) {
    List<String> identities = new ArrayList<>();
    identities.add(certificate.getSubjectX500Principal().getName(X500Principal.RFC2253));
    try {
      if (certificate.getSubjectAlternativeNames() != null) {
        for (List<?> name : certificate.getSubjectAlternativeNames()) {
          String kind =
              switch ((Integer) name.get(0)) {
                case 1 -> "email:";
                case 2 -> "dns:";
                case 6 -> "uri:";
                case 7 -> "ip:";
                default -> null;
              };
          if (kind != null) {
            identities.add(kind + name.get(1));
          }
        }
      }
    } catch (CertificateParsingException unreadable) {
      // The subject alone, then.
    }
    return identities;
  }

  /** The SHA-256 of the certificate's DER encoding, in lower-case hex. */
  public static String fingerprint(X509Certificate certificate) {
    try {
      return HexFormat.of()
          .formatHex(MessageDigest.getInstance("SHA-256").digest(certificate.getEncoded()));
    } catch (NoSuchAlgorithmException | CertificateEncodingException impossible) {
      throw new IllegalStateException(impossible);
    }
  }

  private interface Change<T> {
    Future<T> apply(SqlConnection conn, long tenantId);
  }

  private <T> Future<T> change(
      Changer by, String tenant, GatewayOperation operation, String object, Change<T> change) {
    return AdminChanges.changing(
        pool,
        by,
        tenant,
        operation.id(),
        object,
        conn -> Grants.tenantId(conn, tenant).compose(id -> change.apply(conn, id)));
  }

  private static void checkIdentity(String identity) {
    if (identity == null || identity.isBlank() || identity.length() > 1024) {
      throw ApiException.invalidInput(
          "'identity' is a certificate's subject (RFC 2253, such as CN=writer,O=acme) or a"
              + " subject alternative name (dns:, ip:, uri:, email:), at most 1024 characters");
    }
  }
}
