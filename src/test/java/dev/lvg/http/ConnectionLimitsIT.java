package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.Api;
import dev.lvg.TableLock;
import dev.lvg.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A peer that stalls costs one connection for a bounded time while others are served: silence,
 * bytes that are not HTTP and a body that never arrives are cut off by the deadlines; connections
 * past the cap are closed; a statement that waits on a lock is cancelled and answered 503.
 */
class ConnectionLimitsIT {
  private static TestGateway gw;
  private static Api api;

  @BeforeAll
  static void start() {
    gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_HTTP_HEAD_TIMEOUT_MS", "1000",
                "LVG_HTTP_IDLE_TIMEOUT_MS", "2000",
                "LVG_HTTP_BODY_TIMEOUT_MS", "1000",
                "LVG_HTTP_MAX_CONNECTIONS", "6",
                "LVG_DB_STATEMENT_TIMEOUT_MS", "1000"));
    api = gw.api(gw.newTenant("limits"));
    api.declare("l", "t");
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
  }

  private static Socket connect() throws IOException {
    Socket socket = new Socket("127.0.0.1", gw.gateway.apiPort());
    socket.setSoTimeout(10_000);
    return socket;
  }

  /** Everything the gateway sends until it closes; fails when it has not closed in 10 s. */
  private static String readUntilClosed(Socket socket) throws IOException {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    InputStream in = socket.getInputStream();
    byte[] buffer = new byte[4096];
    try {
      for (int n; (n = in.read(buffer)) >= 0; ) {
        received.write(buffer, 0, n);
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the gateway held the connection open for 10 s", e);
    } catch (IOException reset) {
      // A reset is a close too.
    }
    return received.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aSilentConnectionIsClosedAfterTheHeadTimeoutWhileOthersAreServed() throws Exception {
    try (Socket silent = connect()) {
      long start = System.nanoTime();
      api.post("/v1/table/l%24t/describe", "{}").assertOk();
      assertThat(readUntilClosed(silent)).isEmpty();
      assertThat((System.nanoTime() - start) / 1_000_000).isBetween(900L, 5_000L);
    }
  }

  @Test
  void bytesThatAreNotHttpAreAnsweredOrClosedInTime() throws Exception {
    try (Socket tls = connect()) {
      // The start of a TLS ClientHello.
      tls.getOutputStream().write(HexFormat.of().parseHex("16030102000100020003"));
      String answer = readUntilClosed(tls);
      assertThat(answer.isEmpty() || answer.startsWith("HTTP/1.1 400")).as(answer).isTrue();
    }
  }

  @Test
  void aHeadSentAByteAtATimeIsCutOff() throws Exception {
    try (Socket slow = connect()) {
      byte[] head = "POST /v1/table/l%24t/describe HTTP/1.1\r\nHost: x\r\n".getBytes();
      long start = System.nanoTime();
      try {
        for (byte b : head) {
          slow.getOutputStream().write(b);
          Thread.sleep(100);
        }
      } catch (IOException closedUnderneath) {
        // Closed while still sending: what the deadline is for.
      }
      assertThat(readUntilClosed(slow)).isEmpty();
      assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(5_000L);
    }
  }

  @Test
  void aBodyThatStallsGets408WithTheErrorBody() throws Exception {
    try (Socket stalled = connect()) {
      stalled
          .getOutputStream()
          .write(
              ("POST /v1/table/l%24t/describe HTTP/1.1\r\nHost: x\r\nContent-Type:"
                      + " application/json\r\nContent-Length: 100\r\n\r\n{")
                  .getBytes(StandardCharsets.US_ASCII));
      String answer = readUntilClosed(stalled);
      assertThat(answer).startsWith("HTTP/1.1 408").contains("\"code\":13");
    }
  }

  @Test
  void aMalformedChunkIsAClientErrorOrAClose() throws Exception {
    try (Socket socket = connect()) {
      socket
          .getOutputStream()
          .write(
              ("POST /v1/table/l%24t/describe HTTP/1.1\r\nHost: x\r\nContent-Type:"
                      + " application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      String answer = readUntilClosed(socket);
      assertThat(answer.isEmpty() || answer.startsWith("HTTP/1.1 400")).as(answer).isTrue();
    }
    api.post("/v1/table/l%24t/describe", "{}").assertOk();
  }

  @Test
  void connectionsPastTheCapAreClosedAndServiceResumesWhenTheyGo() throws Exception {
    Socket[] held = new Socket[6];
    try {
      for (int i = 0; i < held.length; i++) {
        held[i] = connect();
      }
      // Connections are counted on their event loops, not in the order they were accepted.
      Thread.sleep(300);
      try (Socket extra = connect()) {
        extra
            .getOutputStream()
            .write("GET /v1/namespace/list HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
        assertThat(readUntilClosed(extra)).isEmpty();
      } catch (IOException reset) {
        // Closed before the request could be written: refused all the same.
      }
    } finally {
      for (Socket socket : held) {
        if (socket != null) {
          socket.close();
        }
      }
    }
    long deadline = System.nanoTime() + 5_000_000_000L;
    int status = 0;
    while (status != 200 && System.nanoTime() < deadline) {
      try {
        status = api.post("/v1/table/l%24t/describe", "{}").status();
      } catch (AssertionError closedWhileCountDrops) {
        Thread.sleep(50);
      }
    }
    assertThat(status).isEqualTo(200);
  }

  @Test
  void aStatementStuckBehindALockIsCancelledAndAnswered503() throws Exception {
    try (TableLock lock = new TableLock(gw, "table_versions")) {
      long start = System.nanoTime();
      api.post("/v1/table/l%24t/version/create", Api.createBody(1, "l/1")).assertError(503, 17);
      assertThat((System.nanoTime() - start) / 1_000_000).isLessThan(8_000L);
    }
    api.post("/v1/table/l%24t/version/create", Api.createBody(1, "l/1")).assertOk();
  }
}
