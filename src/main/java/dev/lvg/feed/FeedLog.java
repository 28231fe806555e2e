package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.ObjectId;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.platform.Exported;
import dev.lvg.tenancy.Tenant;
import dev.lvg.version.TableVersion;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Reads a tenant's change feed from the audit trail: the events after a cursor, in position order,
 * as CloudEvents 1.0 in their JSON form. A page reads only positions at or below the head it read
 * first; the head's transaction committed after every lower position's, so all of them are visible
 * and a page never passes an event that has yet to appear.
 */
@Exported
public final class FeedLog {
  public static final int DEFAULT_PAGE_SIZE = 100;
  public static final int MAX_PAGE_SIZE = 1000;

  /** How many positions one page looks at, at most, when filters leave most of them out. */
  static final long SCAN_WINDOW = 10_000;

  static final String HEAD =
      """
      SELECT e.epoch, COALESCE(h.last_position, 0) AS last_position,
             COALESCE(h.expired_through, 0) AS expired_through
      FROM feed_epoch e LEFT JOIN feed_heads h ON h.tenant_id = $1""";

  /**
   * The events of tenant $1 at positions $2 (exclusive) to $3 (inclusive), of the operations whose
   * keys are $4, on the objects (or under them) whose keys are $5, at most $6, in rows that hold an
   * object the caller may read by one of the keys $7 (null: the caller reads everything); every row
   * also carries the last expired position as the same snapshot sees it (an expiry deletes events
   * and moves that position in one transaction), so a page that ran beside an expiry knows it. A
   * filter left out is a null array and its conditions are dropped from the statement, so that a
   * filter given is answered through the index of the rows' keys (see {@link #keys}). The rows read
   * end at the one that holds position $3, found by one probe of the positions' index: a page never
   * reads past its window, however long the log after it.
   */
  static final String PAGE =
      """
      SELECT h.expired_through, p.position, p.at, p.operation, p.object, p.event_version,
             p.event_transaction, x.properties::text AS properties, v.branch, v.version,
             v.manifest_path, v.requested_path, v.manifest_size, v.e_tag, v.metadata,
             v.transaction_id, v.timestamp_millis, v.lance_transaction
      FROM (SELECT COALESCE((SELECT expired_through FROM feed_heads WHERE tenant_id = $1), 0)
                   AS expired_through) h
      LEFT JOIN LATERAL (
        SELECT a.base + e.n AS position, a.at, a.operation, e.object, e.version AS event_version,
               e.transaction_id AS event_transaction
        FROM (SELECT a.last_position, a.last_position - cardinality(a.object) AS base, a.at,
                     a.operation, a.object, a.version, a.transaction_id
              FROM audit_events a
              WHERE a.tenant_id = $1 AND a.last_position > $2
                AND a.last_position <= (SELECT COALESCE(min(w.last_position), $3) FROM audit_events w
                                        WHERE w.tenant_id = $1 AND w.last_position >= $3)
                AND a.last_position - cardinality(a.object) < $3
                /*operations*/ AND a.feed_keys && $4::text[]
                /*objects*/ AND a.feed_keys && $5::text[]
                AND ($7::text[] IS NULL OR a.feed_keys && $7::text[])
              ORDER BY a.last_position
              OFFSET 0) a
        CROSS JOIN LATERAL unnest(a.object, a.version, a.transaction_id)
             WITH ORDINALITY AS e(object, version, transaction_id, n)
        WHERE a.base + e.n > $2 AND a.base + e.n <= $3
          /*objects*/ AND feed_keys(a.operation, ARRAY[e.object]) && $5::text[]
        ORDER BY a.last_position, e.n LIMIT $6) p ON true
      LEFT JOIN LATERAL (SELECT v.* FROM table_versions v
                         WHERE p.operation = 'CreateTableVersion' AND v.tenant_id = $1
                           AND v.transaction_id = p.event_transaction LIMIT 1) v ON true
      LEFT JOIN LATERAL (SELECT x.properties FROM transactions x
                         WHERE p.operation <> 'CreateTableVersion' AND x.tenant_id = $1
                           AND x.id = p.event_transaction) x ON true
      ORDER BY p.position""";

  /** {@link #PAGE} for each combination of filters: by operation (1), by object (2). */
  private static final String[] PAGES = {
    page(false, false), page(true, false), page(false, true), page(true, true)
  };

  /**
   * {@link #PAGE} with its conditions on operations and objects kept or, for a filter left out,
   * replaced by a check that its parameter is null (which keeps the parameters numbered alike).
   */
  static String page(boolean byOperation, boolean byObject) {
    String page = PAGE;
    if (!byOperation) {
      page = page.replace("/*operations*/ AND a.feed_keys && $4::text[]", "AND $4::text[] IS NULL");
    }
    if (!byObject) {
      page =
          page.replace("/*objects*/ AND a.feed_keys && $5::text[]", "AND $5::text[] IS NULL")
              .replace("/*objects*/ AND feed_keys(a.operation, ARRAY[e.object]) && $5::text[]", "");
    }
    return page.replace("/*operations*/ ", "").replace("/*objects*/ ", "");
  }

  /**
   * The index keys a filter asks for, as {@code feed_keys} in the schema makes them: {@code op:}
   * and an operation, {@code in:} and an object's id (which matches it and everything under it).
   */
  static String[] keys(String prefix, List<String> values) {
    return values == null
        ? null
        : values.stream().map(value -> prefix + value).toArray(String[]::new);
  }

  /** A page: its events, and the cursor to go on from (the last position it covered). */
  public record Page(List<ObjectNode> events, FeedCursor next, long head) {}

  /** The feed's state for a tenant: its epoch, the last position written and expired. */
  public record Head(String epoch, long last, long expiredThrough) {}

  private final String source;

  /** {@code source} is the CloudEvents source prefix this gateway's events carry. */
  public FeedLog(String source) {
    this.source = source;
  }

  /** The feed's head for {@code tenant}. */
  public static Future<Head> head(SqlClient db, Tenant tenant) {
    return db.preparedQuery(HEAD)
        .execute(Tuple.of(tenant.id()))
        .map(
            rows -> {
              Row row = rows.iterator().next();
              return new Head(
                  row.getString("epoch"),
                  row.getLong("last_position"),
                  row.getLong("expired_through"));
            });
  }

  /** The token that starts after the newest event: only what commits from then on. */
  public static final String NOW = "now";

  /**
   * Where a reader starts: after {@code token}, (null or empty) after the oldest event kept, or
   * ({@link #NOW}) after the newest. 410 for a cursor of another history, one older than the
   * retention, or one past the head.
   */
  public static long start(Head head, String token) {
    if (token == null || token.isEmpty()) {
      return head.expiredThrough();
    }
    if (token.equals(NOW)) {
      return head.last();
    }
    FeedCursor cursor = FeedCursor.parse(token);
    if (!cursor.epoch().equals(head.epoch())) {
      throw new ApiException(
          ErrorCode.CURSOR_GONE,
          "cursor '"
              + token
              + "' belongs to another history of this catalog (epoch "
              + cursor.epoch()
              + "; the feed's epoch is now "
              + head.epoch()
              + ", after a restore); read again from the start");
    }
    if (cursor.position() < head.expiredThrough()) {
      throw expired(token, head.expiredThrough());
    }
    if (cursor.position() > head.last()) {
      throw new ApiException(
          ErrorCode.CURSOR_GONE,
          "cursor '"
              + token
              + "' is past the end of this feed (position "
              + head.last()
              + "): it belongs to another history; read again from the start");
    }
    return cursor.position();
  }

  static ApiException expired(String token, long expiredThrough) {
    return new ApiException(
        ErrorCode.CURSOR_GONE,
        "cursor '"
            + token
            + "' is older than the feed keeps (events through position "
            + expiredThrough
            + " have expired); read again from the start");
  }

  /**
   * Up to {@code size} events of {@code tenant} after {@code after} that {@code filter} keeps: the
   * statement keeps the rows that may hold a readable event, and each event is checked here, so a
   * page may hold fewer than {@code size} though more follow; its cursor goes on after what it
   * read.
   */
  public Future<Page> page(
      SqlClient db, Tenant tenant, Head head, long after, FeedFilter filter, int size) {
    long end = Math.min(head.last(), after + SCAN_WINDOW);
    if (end <= after) {
      return Future.succeededFuture(
          new Page(List.of(), new FeedCursor(head.epoch(), after), head.last()));
    }
    Tuple values =
        Tuple.tuple()
            .addLong(tenant.id())
            .addLong(after)
            .addLong(end)
            .addArrayOfString(keys("op:", filter.operations()))
            .addArrayOfString(keys("in:", filter.objects()))
            .addInteger(size)
            .addArrayOfString(
                filter.readable() == null ? null : FeedFilter.readableKeys(filter.readable()));
    int variant = (filter.operations() == null ? 0 : 1) + (filter.objects() == null ? 0 : 2);
    return db.preparedQuery(PAGES[variant])
        .execute(values)
        .map(
            rows -> {
              List<ObjectNode> events = new ArrayList<>(rows.size());
              long last = after;
              int read = 0;
              for (Row row : rows) {
                if (row.getLong("expired_through") > after) {
                  throw expired(new FeedCursor(head.epoch(), after).toString(), row.getLong(0));
                }
                if (row.getValue("position") != null) {
                  read++;
                  last = row.getLong("position");
                  if (filter.readable() == null
                      || FeedFilter.readable(
                          filter.readable(),
                          row.getString("operation"),
                          parts(row.getString("object")))) {
                    events.add(event(tenant, head.epoch(), row));
                  }
                }
              }
              long next = read < size ? end : last;
              return new Page(events, new FeedCursor(head.epoch(), next), head.last());
            });
  }

  private ObjectNode event(Tenant tenant, String epoch, Row row) {
    long position = row.getLong("position");
    String operation = row.getString("operation");
    String object = row.getString("object");
    ObjectNode event = Json.object();
    event.put("specversion", "1.0");
    event.put("id", new FeedCursor(epoch, position).toString());
    event.put("source", source + "/tenants/" + tenant.name());
    event.put("type", EventTypes.of(operation));
    if (object != null && !object.isEmpty()) {
      // CloudEvents 1.0: a subject, when present, is a non-empty string; a batch has none.
      event.put("subject", object);
    }
    event.put("time", DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(row.getOffsetDateTime("at")));
    event.put("sequence", FeedCursor.sequence(position));
    event.put("datacontenttype", "application/json");
    ObjectNode data = event.putObject("data");
    ArrayNode id = data.putArray("id");
    parts(object).forEach(id::add);
    if (row.getValue("version") != null) {
      data.put("branch", row.getString("branch"));
      data.set("version", TableVersion.from(row).toJson());
    } else if (operation.equals(GatewayOperation.CREATE_TABLE_VERSION.id())) {
      // The version was deleted since: its number is all that is left of it.
      data.putObject("version").put("version", row.getLong("event_version"));
    } else if (row.getValue("event_version") != null) {
      data.put("version", row.getLong("event_version"));
    }
    UUID transaction = row.getUUID("event_transaction");
    if (transaction != null) {
      data.put("transaction_id", transaction.toString());
    }
    String properties = row.getString("properties");
    if (properties != null) {
      data.set("properties", Json.parseOptionalObject(Buffer.buffer(properties)));
    }
    return event;
  }

  private static List<String> parts(String object) {
    if (object == null || object.isEmpty() || object.equals(ObjectId.display(List.of()))) {
      return List.of();
    }
    return Arrays.asList(object.split(java.util.regex.Pattern.quote(ObjectId.DEFAULT_DELIMITER)));
  }
}
