package dev.lvg.tenancy;

import dev.lvg.operation.GatewayOperation;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

/**
 * The tenant and key the bootstrap settings name, made at start-up if missing, each with its audit
 * event (credential {@code bootstrap}); safe to repeat, and refused if the key already belongs to
 * another tenant.
 */
final class BootstrapTenant {
  static final String INSERT_TENANT =
      "INSERT INTO tenants (name) VALUES ($1) ON CONFLICT (name) DO NOTHING RETURNING id, name";
  static final String INSERT_KEY =
      """
      INSERT INTO api_keys (key_hash, tenant_id, key_id) VALUES ($1, $2, 'k_' || substr($1, 1, 24))
      ON CONFLICT (key_hash) DO NOTHING RETURNING tenant_id, key_id""";

  private BootstrapTenant() {}

  /** Makes sure tenant {@code tenantName} exists and {@code apiKey} is valid for it. */
  static Future<Tenant> ensure(Pool pool, String tenantName, String apiKey) {
    if (!TenantDirectory.isValidName(tenantName)) {
      return Future.failedFuture(
          new IllegalArgumentException(
              "tenant name must match "
                  + TenantDirectory.TENANT_NAME.pattern()
                  + ": '"
                  + tenantName
                  + "'"));
    }
    String hash = KeyDigest.hash(apiKey);
    return pool.withTransaction(
            conn ->
                conn.preparedQuery(INSERT_TENANT)
                    .execute(Tuple.of(tenantName))
                    .compose(
                        created ->
                            recordBootstrap(conn, created, GatewayOperation.CREATE_TENANT.id()))
                    .compose(
                        recorded ->
                            conn.preparedQuery(TenantDirectory.TENANT_ID)
                                .execute(Tuple.of(tenantName)))
                    .compose(
                        id ->
                            conn.preparedQuery(INSERT_KEY)
                                .execute(Tuple.of(hash, id.iterator().next().getLong(0))))
                    .compose(
                        issued -> recordBootstrap(conn, issued, GatewayOperation.ISSUE_KEY.id()))
                    .compose(
                        recorded ->
                            conn.preparedQuery(TenantDirectory.FIND_BY_KEY)
                                .execute(Tuple.of(hash))))
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

  /** Records the row an insert of the bootstrap settings made, if it made one. */
  private static Future<Void> recordBootstrap(
      SqlConnection conn, RowSet<Row> made, String operation) {
    if (!made.iterator().hasNext()) {
      return Future.succeededFuture();
    }
    Row row = made.iterator().next();
    return AdminChanges.recordChange(
        conn,
        row.getLong(0),
        new Credentials.Changer("bootstrap", null),
        operation,
        row.getString(1),
        "{}");
  }

  private static Tenant first(RowSet<Row> rows) {
    var iterator = rows.iterator();
    if (!iterator.hasNext()) {
      return null;
    }
    Row row = iterator.next();
    return new Tenant(row.getLong("id"), row.getString("name"));
  }
}
