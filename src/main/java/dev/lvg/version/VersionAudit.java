package dev.lvg.version;

import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;
import java.util.UUID;

/**
 * The audit records of version creates: one row per tenant per batch, its arrays holding one
 * element per version. In record mode they are written by the statement that inserts the versions,
 * only for the rows it inserted; in finalize mode by the batch transaction, only for the rows whose
 * manifests were finalized.
 */
final class VersionAudit {
  /** Records the versions created in a transaction: one row per tenant. */
  static final String RECORD =
      """
      INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id,
                                request_id, context)
      SELECT a.tenant_id, 'CreateTableVersion', array_agg(a.credential), array_agg(a.object),
             array_agg(a.version), array_agg(a.txid), array_agg(a.request_id), array_agg(a.context)
      FROM unnest($1::bigint[], $2::bigint[], $3::uuid[], $4::text[], $5::text[], $6::text[],
                  $7::text[]) AS a(tenant_id, version, txid, credential, object, request_id, context)
      GROUP BY a.tenant_id ORDER BY a.tenant_id""";

  private VersionAudit() {}

  /** Records, in {@code tx}, that {@code created} were created. */
  static Future<Void> record(SqlClient tx, List<NewVersion> created) {
    if (created.isEmpty()) {
      return Future.succeededFuture();
    }
    int n = created.size();
    Long[] tenants = new Long[n];
    Long[] versions = new Long[n];
    UUID[] transactions = new UUID[n];
    for (int i = 0; i < n; i++) {
      tenants[i] = created.get(i).tenant().id();
      versions[i] = created.get(i).version();
      transactions[i] = created.get(i).transactionId();
    }
    Tuple params =
        Tuple.tuple().addArrayOfLong(tenants).addArrayOfLong(versions).addArrayOfUUID(transactions);
    return tx.preparedQuery(RECORD).execute(addActors(params, created)).mapEmpty();
  }

  /** Binds the actor arrays (credential, object, request id, context) of {@code requests}. */
  static Tuple addActors(Tuple params, List<NewVersion> requests) {
    int n = requests.size();
    String[] credentials = new String[n];
    String[] objects = new String[n];
    String[] requestIds = new String[n];
    String[] contexts = new String[n];
    for (int i = 0; i < n; i++) {
      NewVersion request = requests.get(i);
      credentials[i] = request.actor().credential();
      objects[i] = request.tableId().toString();
      requestIds[i] = request.actor().requestId();
      contexts[i] = request.actor().context();
    }
    return params
        .addArrayOfString(credentials)
        .addArrayOfString(objects)
        .addArrayOfString(requestIds)
        .addArrayOfString(contexts);
  }
}
