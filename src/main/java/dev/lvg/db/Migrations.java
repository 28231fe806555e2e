package dev.lvg.db;

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
          "V010__audit_trail.sql");

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
                      Future<Integer> chain = Future.succeededFuture(0);
                      for (Migration migration : migrations) {
                        if (!applied.contains(migration.version())) {
                          chain = chain.compose(count -> applyOne(conn, migration).map(count + 1));
                        }
                      }
                      return chain;
                    }));
  }

  private static Future<Void> applyOne(SqlConnection conn, Migration migration) {
    LOG.info("applying migration {}", migration.name());
    return conn.query(migration.sql())
        .execute()
        .compose(
            done ->
                conn.preparedQuery(RECORD).execute(Tuple.of(migration.version(), migration.name())))
        .mapEmpty();
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
