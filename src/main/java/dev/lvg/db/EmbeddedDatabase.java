package dev.lvg.db;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A PostgreSQL server run by the gateway itself when no external database is configured. Its data
 * directory survives restarts. Starting and stopping block, so both run before the event loops
 * serve anything or after they have stopped.
 */
public final class EmbeddedDatabase implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDatabase.class);
  private static final String DATABASE = "postgres";
  private static final String USER = "postgres";

  private final EmbeddedPostgres postgres;

  private EmbeddedDatabase(EmbeddedPostgres postgres) {
    this.postgres = postgres;
  }

  public static EmbeddedDatabase start(Path dataDir) {
    Path pgData = dataDir.resolve("postgres");
    try {
      Files.createDirectories(pgData);
      EmbeddedPostgres postgres =
          EmbeddedPostgres.builder()
              .setDataDirectory(pgData)
              .setCleanDataDirectory(false)
              .setServerConfig("listen_addresses", "127.0.0.1")
              .setServerConfig("max_connections", "200")
              .setServerConfig("synchronous_commit", "on")
              .setOutputRedirector(ProcessBuilder.Redirect.DISCARD)
              .start();
      LOG.info(
          "embedded PostgreSQL listening on 127.0.0.1:{} with data in {}",
          postgres.getPort(),
          pgData);
      return new EmbeddedDatabase(postgres);
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot start embedded PostgreSQL in " + pgData + ": " + e.getMessage(), e);
    } catch (IllegalStateException e) {
      // EmbeddedPostgres says "could not lock <dir>/epg-lock" when another process holds it, and
      // throws OverlappingFileLockException (one of these) when this process does.
      if (!(e instanceof OverlappingFileLockException)
          && !String.valueOf(e.getMessage()).contains("lock")) {
        throw e;
      }
      throw new IllegalStateException(
          "the embedded PostgreSQL in "
              + pgData
              + " is in use by another process (a gateway already running on "
              + dataDir
              + "?): stop it first, or start this one with another LVG_DATA_DIR",
          e);
    }
  }

  public String url() {
    return "postgresql://" + USER + "@127.0.0.1:" + postgres.getPort() + "/" + DATABASE;
  }

  @Override
  public void close() {
    try {
      postgres.close();
    } catch (IOException e) {
      LOG.warn("embedded PostgreSQL did not stop cleanly: {}", e.getMessage());
    }
  }
}
