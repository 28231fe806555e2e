package dev.lvg.tenancy;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tenants as a whole: listed a page at a time, in the order of their names, and deleted with
 * everything the catalog holds for them. Deleting touches no file in storage: a deleted tenant's
 * tables stay where they are, and can be registered again under another tenant.
 */
public final class Tenants {
  public static final int DEFAULT_LIMIT = 100;
  public static final int MAX_LIMIT = 1000;

  private static final String PAGE =
      """
      SELECT name, disabled, (extract(epoch FROM created_at) * 1000)::bigint AS created_at
      FROM tenants WHERE name COLLATE "C" > $1 ORDER BY name COLLATE "C" LIMIT $2""";
  private static final String LOCK = "SELECT id FROM tenants WHERE name = $1 FOR UPDATE";
  private static final String NAMESPACES = "SELECT count(*) FROM namespaces WHERE tenant_id = $1";
  private static final String LIVE_TABLES =
      "SELECT count(*) FROM lance_tables WHERE tenant_id = $1 AND deregistered_at IS NULL";

  /**
   * What a tenant's deletion removes, by the name its count is reported under, children first; the
   * tenant's own row goes last.
   */
  private static final Map<String, String> REMOVALS = new LinkedHashMap<>();

  static {
    REMOVALS.put("feed_sink_cursors", "DELETE FROM feed_sink_cursors WHERE tenant_id = $1");
    REMOVALS.put("feed_sink_tenants", "DELETE FROM feed_sink_tenants WHERE tenant_id = $1");
    REMOVALS.put("role_members", "DELETE FROM role_members WHERE tenant_id = $1");
    REMOVALS.put("grants", "DELETE FROM grants WHERE tenant_id = $1");
    REMOVALS.put("webhook_dead_letters", "DELETE FROM webhook_dead_letters WHERE tenant_id = $1");
    REMOVALS.put("webhooks", "DELETE FROM webhooks WHERE tenant_id = $1");
    REMOVALS.put("feed_heads", "DELETE FROM feed_heads WHERE tenant_id = $1");
    REMOVALS.put("audit_events", "DELETE FROM audit_events WHERE tenant_id = $1");
    REMOVALS.put("transactions", "DELETE FROM transactions WHERE tenant_id = $1");
    REMOVALS.put("table_drops", "DELETE FROM table_drops WHERE tenant_id = $1");
    REMOVALS.put("table_branches", "DELETE FROM table_branches WHERE tenant_id = $1");
    REMOVALS.put("table_versions", "DELETE FROM table_versions WHERE tenant_id = $1");
    REMOVALS.put("lance_tables", "DELETE FROM lance_tables WHERE tenant_id = $1");
    REMOVALS.put("namespaces", "DELETE FROM namespaces WHERE tenant_id = $1");
    REMOVALS.put("api_keys", "DELETE FROM api_keys WHERE tenant_id = $1");
    REMOVALS.put("client_certificates", "DELETE FROM client_certificates WHERE tenant_id = $1");
    REMOVALS.put("revoked_certificates", "DELETE FROM revoked_certificates WHERE tenant_id = $1");
    REMOVALS.put("tenants", "DELETE FROM tenants WHERE id = $1");
  }

  /** One tenant in a listing; {@code createdAt} in epoch milliseconds. */
  public record TenantInfo(String name, boolean disabled, long createdAt) {}

  /** A page of tenants, and the name to pass as {@code after} for the next (null at the end). */
  public record Page(List<TenantInfo> tenants, String next) {}

  /** What a deletion removed: rows by catalog table, in the order they were removed. */
  public record Deletion(String name, Map<String, Integer> removed) {}

  private final Pool pool;

  public Tenants(Pool pool) {
    this.pool = pool;
  }

  /** Up to {@code limit} tenants whose names sort after {@code after} (byte order). */
  public Future<Page> page(String after, int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      return Future.failedFuture(
          ApiException.invalidInput("'limit' must be between 1 and " + MAX_LIMIT));
    }
    return pool.preparedQuery(PAGE)
        .execute(Tuple.of(after == null ? "" : after, limit + 1))
        .map(
            rows -> {
              List<TenantInfo> tenants = new ArrayList<>();
              for (Row row : rows) {
                tenants.add(
                    new TenantInfo(
                        row.getString("name"),
                        row.getBoolean("disabled"),
                        row.getLong("created_at")));
              }
              String next = null;
              if (tenants.size() > limit) {
                tenants.remove(limit);
                next = tenants.get(limit - 1).name();
              }
              return new Page(tenants, next);
            });
  }

  /**
   * Deletes a tenant, its keys, and, when {@code cascade}, every namespace, table, version, branch,
   * tag, transaction and audit event it has; without {@code cascade} a tenant that still has a
   * namespace or a table is refused (409 code 3). Every gateway forgets its credentials once this
   * commits.
   */
  public Future<Deletion> delete(String name, boolean cascade) {
    return pool.withTransaction(
        conn ->
            conn.preparedQuery(LOCK)
                .execute(Tuple.of(name))
                .compose(
                    found -> {
                      if (!found.iterator().hasNext()) {
                        return Future.failedFuture(
                            new ApiException(
                                ErrorCode.NAMESPACE_NOT_FOUND,
                                "tenant '" + name + "' does not exist"));
                      }
                      long id = found.iterator().next().getLong(0);
                      return (cascade ? Future.<Void>succeededFuture() : empty(conn, name, id))
                          .compose(empty -> remove(conn, name, id));
                    }));
  }

  private static Future<Void> empty(SqlConnection conn, String name, long id) {
    Future<Long> namespaces = count(conn, NAMESPACES, id);
    Future<Long> tables = count(conn, LIVE_TABLES, id);
    return Future.all(namespaces, tables)
        .compose(
            counted ->
                namespaces.result() + tables.result() == 0
                    ? Future.succeededFuture()
                    : Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_EMPTY,
                            "tenant '"
                                + name
                                + "' has "
                                + namespaces.result()
                                + " namespace(s) and "
                                + tables.result()
                                + " table(s): drop them first, or delete it with"
                                + " behavior=Cascade")));
  }

  private static Future<Long> count(SqlConnection conn, String sql, long id) {
    return conn.preparedQuery(sql)
        .execute(Tuple.of(id))
        .map(rows -> rows.iterator().next().getLong(0));
  }

  private static Future<Deletion> remove(SqlConnection conn, String name, long id) {
    Map<String, Future<Integer>> removing = new LinkedHashMap<>();
    REMOVALS.forEach(
        (table, sql) ->
            removing.put(
                table, conn.preparedQuery(sql).execute(Tuple.of(id)).map(rows -> rows.rowCount())));
    Future<?> notified = conn.preparedQuery(Credentials.NOTIFY).execute(Tuple.of("changed"));
    return Future.all(new ArrayList<>(removing.values()))
        .compose(all -> notified)
        .map(
            done -> {
              Map<String, Integer> removed = new LinkedHashMap<>();
              removing.forEach((table, rows) -> removed.put(table, rows.result()));
              return new Deletion(name, removed);
            });
  }
}
