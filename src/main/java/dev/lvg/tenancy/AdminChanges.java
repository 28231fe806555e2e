package dev.lvg.tenancy;

import dev.lvg.tenancy.Credentials.Changer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.function.Function;

/**
 * How an administrative change is made: in one transaction with its record in the audit trail and
 * the notice that makes every gateway forget what it remembered about credentials and grants.
 */
public final class AdminChanges {
  /**
   * The audit record of a change ($3, of object $4) to tenant $1, made by $2 in request $5, with
   * the context $6 (JSON).
   */
  static final String AUDIT =
      """
      INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id,
                                request_id, context)
      VALUES ($1, $3, ARRAY[$2::text], ARRAY[$4::text], '{NULL}', '{NULL}', ARRAY[$5::text],
              ARRAY[$6::text])""";

  private AdminChanges() {}

  /**
   * Runs {@code change} to {@code tenant} on {@code pool} in a transaction that also records it in
   * the audit trail (unless it answers {@code false}: nothing changed) and notifies every gateway.
   */
  static <T> Future<T> changing(
      Pool pool,
      Changer by,
      String tenant,
      String operation,
      String object,
      Function<SqlConnection, Future<T>> change) {
    return pool.withTransaction(
        conn ->
            change
                .apply(conn)
                .compose(
                    result -> {
                      Future<?> audited =
                          Boolean.FALSE.equals(result)
                              ? Future.succeededFuture()
                              : conn.preparedQuery(TenantDirectory.TENANT_ID)
                                  .execute(Tuple.of(tenant))
                                  .compose(
                                      id ->
                                          recordChange(
                                              conn,
                                              id.iterator().next().getLong(0),
                                              by,
                                              operation,
                                              object,
                                              "{}"));
                      Future<?> notified =
                          conn.preparedQuery(Credentials.NOTIFY).execute(Tuple.of("changed"));
                      return Future.all(audited, notified).map(result);
                    }));
  }

  /**
   * Records an administrative change of tenant {@code tenantId} in the audit trail, on {@code conn}
   * (the change's own transaction): who made it, in which request, on which object, and {@code
   * context} (a JSON object; never a secret).
   */
  public static Future<Void> recordChange(
      SqlConnection conn,
      long tenantId,
      Changer by,
      String operation,
      String object,
      String context) {
    return conn.preparedQuery(AUDIT)
        .execute(Tuple.of(tenantId, by.credential(), operation, object, by.requestId(), context))
        .mapEmpty();
  }
}
