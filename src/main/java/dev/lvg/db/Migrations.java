package dev.lvg.db;

import dev.lvg.http.Futures;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies the numbered SQL files under {@code db/migration/} that the database has not seen yet, in
 * one transaction holding an advisory lock, so gateways starting together apply each file once.
 */
public final class Migrations {
  private static final Logger LOG = LoggerFactory.getLogger(Migrations.class);

  /** Files in the order they apply; a new file is appended, an applied file never changes. */
  static final List<String> FILES =
      List.of(
          "V001__schema.sql",
          "V002__branches_and_soft_deregister.sql",
          "V003__pending_versions.sql",
          "V004__one_chain_start.sql",
          "V005__slots_held_by_transactions.sql",
          "V006__versions_without_foreign_key.sql",
          "V007__dropped_tables.sql",
          "V008__transactions.sql",
          "V009__scoped_keys.sql",
          "V010__audit_trail.sql",
          "V011__keys_start_with_the_tenant.sql",
          "V012__distributed_by_tenant.sql",
          "V013__lance_transactions.sql",
          "V014__change_feed.sql",
          "V015__webhooks.sql",
          "V016__feed_keys.sql",
          "V017__grants.sql",
          "V018__feed_sinks.sql",
          "V019__feed_sink_tenants.sql");

  private static final long LOCK_KEY = 0x4c56475f4d4947L;

  private static final String LOCK = "SELECT pg_advisory_xact_lock($1)";
  private static final String CREATE_HISTORY =
      """
      CREATE TABLE IF NOT EXISTS schema_migrations (
        version    INT PRIMARY KEY,
        name       TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now())""";
  private static final String APPLIED = "SELECT version FROM schema_migrations";

  /**
   * Keeps PostgreSQL's notice that the history table already exists out of the log, and lifts the
   * pool's statement timeout: a migration over a large table may take longer than any request.
   */
  private static final String QUIET =
      "SET LOCAL client_min_messages = warning; SET LOCAL statement_timeout = 0";

  private static final String RECORD =
      "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)";

  private Migrations() {}

  /** One numbered SQL file. */
  public record Migration(int version, String name, String sql) {}

  /**
   * Reads every migration from the classpath; blocking, so it runs before the event loops start.
   */
  public static List<Migration> load() {
    List<Migration> result = new ArrayList<>();
    for (String file : FILES) {
      try {
        result.add(new Migration(versionOf(file), file, read(file)));
      } catch (IOException e) {
        throw new IllegalStateException(e.getMessage(), e);
      }
    }
    return result;
  }

  public static Future<Integer> apply(Pool pool, List<Migration> migrations) {
    return pool.withTransaction(
        conn ->
            conn.preparedQuery(LOCK)
                .execute(Tuple.of(LOCK_KEY))
                .compose(locked -> conn.query(QUIET).execute())
                .compose(quiet -> conn.query(CREATE_HISTORY).execute())
                .compose(created -> conn.query(APPLIED).execute())
                .compose(
                    rows -> {
                      Set<Integer> applied = new HashSet<>();
                      for (Row row : rows) {
                        applied.add(row.getInteger(0));
                      }
                      List<Migration> pending =
                          migrations.stream()
                              .filter(migration -> !applied.contains(migration.version()))
                              .toList();
                      return Futures.sequence(pending, migration -> applyOne(conn, migration))
                          .map(List::size);
                    }));
  }

  /**
   * Applies a file one statement per query: distributed PostgreSQL (Citus) refuses some DDL sent as
   * several statements in one query.
   */
  private static Future<Void> applyOne(SqlConnection conn, Migration migration) {
    LOG.info("applying migration {}", migration.name());
    return Futures.sequence(
            statements(migration.sql()), statement -> conn.query(statement).execute())
        .compose(
            done ->
                conn.preparedQuery(RECORD).execute(Tuple.of(migration.version(), migration.name())))
        .mapEmpty();
  }

  /**
   * The statements of a migration file: split at each {@code ;} outside comments, quoted text and
   * dollar-quoted bodies; comments dropped, empty statements skipped.
   */
  static List<String> statements(String sql) {
    List<String> statements = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '-' && sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? sql.length() : end;
      } else if (c == '\'' || c == '"') {
        int end = sql.indexOf(c, i + 1);
        while (end >= 0 && end + 1 < sql.length() && sql.charAt(end + 1) == c) {
          end = sql.indexOf(c, end + 2);
        }
        end = end < 0 ? sql.length() : end + 1;
        current.append(sql, i, end);
        i = end;
      } else if (c == '$' && dollarTag(sql, i) != null) {
        String tag = dollarTag(sql, i);
        int end = sql.indexOf(tag, i + tag.length());
        end = end < 0 ? sql.length() : end + tag.length();
        current.append(sql, i, end);
        i = end;
      } else if (c == ';') {
        add(statements, current);
        i++;
      } else {
        current.append(c);
        i++;
      }
    }
    add(statements, current);
    return statements;
  }

  /** The dollar-quote tag ({@code $$} or {@code $name$}) starting at {@code at}, or null. */
  private static String dollarTag(String sql, int at) {
    int end = at + 1;
    while (end < sql.length()
        && (Character.isLetterOrDigit(sql.charAt(end)) || sql.charAt(end) == '_')) {
      end++;
    }
    return end < sql.length() && sql.charAt(end) == '$' ? sql.substring(at, end + 1) : null;
  }

  private static void add(List<String> statements, StringBuilder current) {
    String statement = current.toString().strip();
    if (!statement.isEmpty()) {
      statements.add(statement);
    }
    current.setLength(0);
  }

  static int versionOf(String file) {
    return Integer.parseInt(file.substring(1, file.indexOf("__")));
  }

  private static String read(String file) throws IOException {
    try (InputStream in = Migrations.class.getResourceAsStream("/db/migration/" + file)) {
      if (in == null) {
        throw new IOException("migration " + file + " is missing from the classpath");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
