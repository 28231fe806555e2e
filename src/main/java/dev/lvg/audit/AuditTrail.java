package dev.lvg.audit;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.math.BigInteger;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The audit trail's statements. A change records itself on the client (transaction) that makes it,
 * or inside its own statement, so the record and the change commit together. Readers page with an
 * {@code after} cursor and only ever see rows older than every transaction still running, so a
 * cursor never passes a row that commits later.
 */
public final class AuditTrail {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  /** The columns of one record, in the order {@link #values} binds them from {@code first}. */
  public static final String COLUMNS =
      "tenant_id, credential, operation, object, version, transaction_id, request_id, context";

  static final String RECORD =
      "INSERT INTO audit_events ("
          + COLUMNS
          + ") VALUES ($1, $2, $3, $4, $5, $6, $7, $8::text::jsonb)";

  static final String PAGE =
      """
      SELECT a.xact::text AS xact, a.seq, a.at, a.credential, a.operation, a.object, a.version,
             a.transaction_id, a.request_id, a.context::text AS context
      FROM audit_events a
      WHERE a.tenant_id = (SELECT id FROM tenants WHERE name = $1)
        AND (a.xact, a.seq) > ($2::text::xid8, $3::bigint)
        AND a.xact < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY a.xact, a.seq LIMIT $4""";

  static final String TENANT_EXISTS = "SELECT 1 FROM tenants WHERE name = $1";

  private static final Pattern CURSOR = Pattern.compile("(\\d{1,20})-(\\d{1,19})");

  private AuditTrail() {}

  /** Records one change made on {@code db}, which must be the change's own transaction. */
  public static Future<Void> record(
      SqlClient db,
      Actor actor,
      String operation,
      String object,
      Long version,
      UUID transactionId) {
    return db.preparedQuery(RECORD)
        .execute(values(Tuple.tuple(), actor, operation, object, version, transactionId))
        .mapEmpty();
  }

  /**
   * Runs {@code change} in a transaction of {@code pool} that also records it; a change that
   * answers {@code null} changed nothing and is not recorded.
   */
  public static <T> Future<T> audited(
      Pool pool,
      Actor actor,
      String operation,
      String object,
      Function<SqlConnection, Future<T>> change) {
    return pool.withTransaction(
        tx ->
            change
                .apply(tx)
                .compose(
                    result ->
                        result == null
                            ? Future.succeededFuture(null)
                            : record(tx, actor, operation, object, null, null).map(result)));
  }

  /** Adds one record's values to {@code tuple}, in the order of {@link #COLUMNS}. */
  public static Tuple values(
      Tuple tuple, Actor actor, String operation, String object, Long version, UUID transactionId) {
    return tuple
        .addLong(actor.tenant().id())
        .addString(actor.credential())
        .addString(operation)
        .addString(object == null ? "" : object)
        .addLong(version)
        .addUUID(transactionId)
        .addString(actor.requestId())
        .addString(actor.context());
  }

  /**
   * Up to {@code limit} records of {@code tenant} after the cursor {@code after} (null: from the
   * start), oldest first: {@code {"events": [...], "next": cursor}}; {@code next} is where to go on
   * from, the same cursor again when nothing is new. 404 code 1 for a tenant that does not exist.
   */
  public static Future<ObjectNode> page(SqlClient db, String tenant, String after, int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      return Future.failedFuture(
          ApiException.invalidInput("'limit' must be 1 to " + MAX_LIMIT + ", got " + limit));
    }
    String xact = "0";
    long seq = 0;
    if (after != null && !after.isEmpty()) {
      Matcher cursor = CURSOR.matcher(after);
      if (!cursor.matches()) {
        return Future.failedFuture(
            ApiException.invalidInput(
                "'after' is not a cursor this server issued: '" + after + "'"));
      }
      xact = cursor.group(1);
      try {
        seq = Long.parseLong(cursor.group(2));
      } catch (NumberFormatException e) {
        return Future.failedFuture(ApiException.invalidInput("'after' is out of range"));
      }
      if (new BigInteger(xact).bitLength() > 64) {
        return Future.failedFuture(ApiException.invalidInput("'after' is out of range"));
      }
    }
    String fromXact = xact;
    long fromSeq = seq;
    return db.preparedQuery(TENANT_EXISTS)
        .execute(Tuple.of(tenant))
        .compose(
            found ->
                found.size() == 0
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_FOUND,
                            "tenant '" + tenant + "' does not exist"))
                    : db.preparedQuery(PAGE).execute(Tuple.of(tenant, fromXact, fromSeq, limit)))
        .map(
            rows -> {
              ObjectNode result = Json.object();
              ArrayNode events = result.putArray("events");
              String next = after == null || after.isEmpty() ? fromXact + "-" + fromSeq : after;
              for (Row row : rows) {
                events.add(event(tenant, row));
                next = row.getString("xact") + "-" + row.getLong("seq");
              }
              return result.put("next", next);
            });
  }

  private static ObjectNode event(String tenant, Row row) {
    ObjectNode event = Json.object();
    event.put("cursor", row.getString("xact") + "-" + row.getLong("seq"));
    event.put("at", row.getOffsetDateTime("at").toInstant().toEpochMilli());
    event.put("tenant", tenant);
    event.put("credential", row.getString("credential"));
    event.put("operation", row.getString("operation"));
    event.put("object", row.getString("object"));
    Long version = row.getLong("version");
    if (version != null) {
      event.put("version", version);
    }
    UUID transaction = row.getUUID("transaction_id");
    if (transaction != null) {
      event.put("transaction_id", transaction.toString());
    }
    event.put("request_id", row.getString("request_id"));
    event.set("context", Json.parseOptionalObject(Buffer.buffer(row.getString("context"))));
    return event;
  }
}
