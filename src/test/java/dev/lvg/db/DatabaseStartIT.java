package dev.lvg.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.ConnectionCutter;
import dev.lvg.TestGateway;
import io.vertx.pgclient.PgConnectOptions;
import java.net.ServerSocket;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A gateway started before its PostgreSQL answers waits for it, with backoff and a bound, instead
 * of exiting at once (a pod beside a starting database does not crash-loop).
 */
class DatabaseStartIT {

  private static int freePort() throws Exception {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** The shared database's URL, reached through {@code port} instead. */
  private static String through(int port) {
    PgConnectOptions real = PgConnectOptions.fromUri(TestGateway.shared().databaseUrl());
    return "postgresql://"
        + real.getUser()
        + (real.getPassword() == null || real.getPassword().isEmpty()
            ? ""
            : ":" + real.getPassword())
        + "@127.0.0.1:"
        + port
        + "/"
        + real.getDatabase();
  }

  @Test
  void aGatewayWaitsForADatabaseThatComesUpLater() throws Exception {
    PgConnectOptions real = PgConnectOptions.fromUri(TestGateway.shared().databaseUrl());
    int port = freePort();
    CompletableFuture<TestGateway> starting =
        CompletableFuture.supplyAsync(
            () -> TestGateway.dedicated(Map.of("LVG_DB_URL", through(port))));
    Thread.sleep(2500);
    assertThat(starting).isNotDone();
    try (ConnectionCutter proxy = new ConnectionCutter(port, real.getHost(), real.getPort())) {
      TestGateway gw = starting.get(60, TimeUnit.SECONDS);
      try {
        gw.api(gw.newTenant("late")).declare("late", "t");
      } finally {
        gw.gateway.close();
      }
    }
  }

  @Test
  void aDatabaseThatNeverAnswersEndsStartUpAfterTheBound() throws Exception {
    int port = freePort();
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                TestGateway.dedicated(
                    Map.of("LVG_DB_URL", through(port), "LVG_DB_START_TIMEOUT_S", "2")))
        .hasMessageContaining("Connection refused");
    assertThat(TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)).isBetween(1L, 20L);
  }
}
