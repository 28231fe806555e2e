package dev.lvg.audit;

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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The audit trail's statements. A change records itself on the client (transaction) that makes it,
 * or inside its own statement, so the record and the change commit together. A row holds the
 * changes of one operation of one tenant as parallel arrays, one element per change; readers see
 * one event per element. Readers page with an {@code after} cursor and only ever see rows older
 * than every transaction still running, so a cursor never passes a change that commits later.
 */
public final class AuditTrail {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  static final String RECORD =
      """
      INSERT INTO audit_events (tenant_id, operation, credential, object, version, transaction_id,
                                request_id, context)
      VALUES ($1, $2, ARRAY[$3::text], ARRAY[$4::text], ARRAY[$5::bigint], ARRAY[$6::uuid],
              ARRAY[$7::text], ARRAY[$8::text])""";

  /** The changes after the cursor ($2, $3, $4) of tenant $1, at most $5 of them. */
  static final String PAGE =
      """
      SELECT a.xact::text AS xact, a.seq, e.n, a.at, a.operation, e.credential, e.object, e.version,
             e.transaction_id, e.request_id, e.context
      FROM audit_events a
      CROSS JOIN LATERAL unnest(a.credential, a.object, a.version, a.transaction_id, a.request_id,
                                a.context)
           WITH ORDINALITY AS e(credential, object, version, transaction_id, request_id, context, n)
      WHERE a.tenant_id = $1
        AND (a.xact, a.seq) >= ($2::text::xid8, $3::bigint)
        AND (a.xact, a.seq, e.n) > ($2::text::xid8, $3::bigint, $4::bigint)
        AND a.xact < pg_snapshot_xmin(pg_current_snapshot())
      ORDER BY a.xact, a.seq, e.n LIMIT $5""";

  static final String TENANT_ID = "SELECT id FROM tenants WHERE name = $1";

  private static final Pattern CURSOR = Pattern.compile("(\\d{1,20})-(\\d{1,19})-(\\d{1,9})");

  private AuditTrail() {}

  /** Records one change made on {@code db}, which must be the change's own transaction. */
  public static Future<Void> record(
      SqlClient db,
      Actor actor,
      String operation,
      String object,
      Long version,
      UUID transactionId) {
    Tuple values =
        Tuple.tuple()
            .addLong(actor.tenant().id())
            .addString(operation)
            .addString(actor.credential())
            .addString(object == null ? "" : object)
            .addLong(version)
            .addUUID(transactionId)
            .addString(actor.requestId())
            .addString(actor.context());
    return db.preparedQuery(RECORD).execute(values).mapEmpty();
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
    return audited(pool, actor, operation, object, change, Objects::nonNull);
  }

  /**
   * Runs {@code change} in a transaction of {@code pool} that also records it when {@code changed}
   * says its answer changed something.
   */
  public static <T> Future<T> audited(
      Pool pool,
      Actor actor,
      String operation,
      String object,
      Function<SqlConnection, Future<T>> change,
      Predicate<? super T> changed) {
    return pool.withTransaction(
        tx ->
            change
                .apply(tx)
                .compose(
                    result ->
                        changed.test(result)
                            ? record(tx, actor, operation, object, null, null).map(result)
                            : Future.succeededFuture(result)));
  }

  /**
   * A page of the audit trail: its events, oldest first, and the cursor to go on from (the same
   * cursor again when nothing is new).
   */
  public record Page(List<ObjectNode> events, String next) {}

  /**
   * Up to {@code limit} changes of {@code tenant} after the cursor {@code after} (null: from the
   * start), oldest first. 404 code 1 for a tenant that does not exist.
   */
  public static Future<Page> page(SqlClient db, String tenant, String after, int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      return Future.failedFuture(
          ApiException.invalidInput("'limit' must be 1 to " + MAX_LIMIT + ", got " + limit));
    }
    String from = after == null || after.isEmpty() ? "0-0-0" : after;
    Matcher cursor = CURSOR.matcher(from);
    if (!cursor.matches() || new BigInteger(cursor.group(1)).bitLength() > 64) {
      return Future.failedFuture(
          ApiException.invalidInput("'" + after + "' is not a cursor this server issued"));
    }
    long seq;
    long element;
    try {
      seq = Long.parseLong(cursor.group(2));
      element = Long.parseLong(cursor.group(3));
    } catch (NumberFormatException e) {
      return Future.failedFuture(
          ApiException.invalidInput("'" + after + "' is not a cursor this server issued"));
    }
    return db.preparedQuery(TENANT_ID)
        .execute(Tuple.of(tenant))
        .compose(
            found ->
                found.size() == 0
                    ? Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_FOUND,
                            "tenant '" + tenant + "' does not exist"))
                    : db.preparedQuery(PAGE)
                        .execute(
                            Tuple.of(
                                found.iterator().next().getLong(0),
                                cursor.group(1),
                                seq,
                                element,
                                limit)))
        .map(
            rows -> {
              List<ObjectNode> events = new ArrayList<>(rows.size());
              String next = from;
              for (Row row : rows) {
                ObjectNode event = event(tenant, row);
                events.add(event);
                next = event.get("cursor").asText();
              }
              return new Page(events, next);
            });
  }

  private static ObjectNode event(String tenant, Row row) {
    ObjectNode event = Json.object();
    event.put("cursor", row.getString("xact") + "-" + row.getLong("seq") + "-" + row.getLong("n"));
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
    String requestId = row.getString("request_id");
    if (requestId != null) {
      event.put("request_id", requestId);
    }
    event.set("context", Json.parseOptionalObject(Buffer.buffer(row.getString("context"))));
    return event;
  }
}
