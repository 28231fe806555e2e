package dev.lvg.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two gateway processes (the built jar) on one database: a key revoked, or a tenant disabled,
 * through one of them is refused by the other within a second.
 */
class RevocationAcrossProcessesIT {
  private static final String ADMIN_KEY = "admin-" + UUID.randomUUID();
  private static GatewayProcess first;
  private static GatewayProcess second;

  /** A gateway started from the jar, as an operator starts it. */
  private record GatewayProcess(Process process, String baseUrl, Path log) {
    static GatewayProcess start() throws Exception {
      int port = freePort();
      int management = freePort();
      Path dir = Files.createTempDirectory("lvg-process-");
      Path log = dir.resolve("gateway.log");
      ProcessBuilder builder =
          new ProcessBuilder(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-jar",
              Path.of("target", "lance-version-gateway.jar").toAbsolutePath().toString());
      builder.environment().put("LVG_CONFIG", "");
      builder.environment().put("LVG_DB_URL", TestGateway.shared().databaseUrl());
      builder.environment().put("LVG_HOST", "127.0.0.1");
      builder.environment().put("LVG_PORT", Integer.toString(port));
      builder.environment().put("LVG_MANAGEMENT_PORT", Integer.toString(management));
      builder.environment().put("LVG_DATA_DIR", dir.resolve("data").toString());
      builder.environment().put("LVG_MANIFEST_MODE", "record");
      builder.environment().put("LVG_ADMIN_API_KEY", ADMIN_KEY);
      builder.environment().put("LVG_ADMIN_LISTENER", "api");
      builder.redirectErrorStream(true).redirectOutput(log.toFile());
      GatewayProcess started = new GatewayProcess(builder.start(), "http://127.0.0.1:" + port, log);
      String ready = "http://127.0.0.1:" + management + "/health/ready";
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
      while (System.nanoTime() < deadline) {
        if (!started.process.isAlive()) {
          throw new AssertionError("the gateway exited: " + Files.readString(log));
        }
        try {
          if (Api.send(HttpRequest.newBuilder(URI.create(ready)).GET().build()).status() == 200) {
            return started;
          }
        } catch (AssertionError notYet) {
          // not listening yet
        }
        Thread.sleep(100);
      }
      started.process.destroyForcibly();
      throw new AssertionError("the gateway was not ready in 60 s: " + Files.readString(log));
    }

    Api.Response admin(String method, String path, String body) {
      return Api.call(baseUrl, method, path, body, ADMIN_KEY);
    }

    void stop() throws InterruptedException {
      process.destroy();
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  @BeforeAll
  static void start() throws Exception {
    first = GatewayProcess.start();
    second = GatewayProcess.start();
  }

  @AfterAll
  static void stop() throws Exception {
    for (GatewayProcess gateway : List.of(first, second)) {
      if (gateway != null) {
        gateway.stop();
      }
    }
  }

  private static String tenant() {
    String name = "proc-" + UUID.randomUUID().toString().substring(0, 8);
    first.admin("POST", "/admin/v1/tenants", "{\"name\":\"" + name + "\"}").assertOk();
    return name;
  }

  /** Polls the second gateway until the key gets {@code status}; answers how long that took. */
  private static long millisUntil(Api api, int status) throws InterruptedException {
    long start = System.nanoTime();
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(5)) {
      if (api.post("/v1/namespace/n/describe", "{}").status() == status) {
        return (System.nanoTime() - start) / 1_000_000;
      }
      Thread.sleep(10);
    }
    throw new AssertionError("not answered " + status + " within five seconds");
  }

  @Test
  void aKeyRevokedOnOneProcessIsRefusedByTheOtherWithinASecond() throws Exception {
    String tenant = tenant();
    JsonNode key =
        first
            .admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{\"scopes\":[\"read\"]}")
            .assertOk();
    Api onSecond = new Api(second.baseUrl(), key.get("api_key").asText());
    // Used on the second process first, so that process remembers the key.
    onSecond.post("/v1/namespace/n/describe", "{}").assertError(404, 1);
    onSecond.post("/v1/namespace/n/describe", "{}").assertError(404, 1);
    first
        .admin(
            "DELETE", "/admin/v1/tenants/" + tenant + "/keys/" + key.get("key_id").asText(), null)
        .assertOk();
    assertThat(millisUntil(onSecond, 401)).isLessThan(1000);
    onSecond.post("/v1/namespace/n/describe", "{}").assertError(401, 16);
  }

  @Test
  void aTenantDisabledOnOneProcessIsRefusedByTheOtherWithinASecond() throws Exception {
    String tenant = tenant();
    JsonNode key = first.admin("POST", "/admin/v1/tenants/" + tenant + "/keys", "{}").assertOk();
    Api onSecond = new Api(second.baseUrl(), key.get("api_key").asText());
    onSecond.post("/v1/namespace/n/create", "{}").assertOk();
    first.admin("POST", "/admin/v1/tenants/" + tenant + "/disable", null).assertOk();
    assertThat(millisUntil(onSecond, 403)).isLessThan(1000);
    onSecond.post("/v1/namespace/n/describe", "{}").assertError(403, 15);
    first.admin("POST", "/admin/v1/tenants/" + tenant + "/enable", null).assertOk();
    assertThat(millisUntil(onSecond, 200)).isLessThan(1000);
  }
}
