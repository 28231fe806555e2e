package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.TestGateway;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Clients that speak something else on the plain-HTTP port: a request line naming any version but
 * HTTP/1.0 and HTTP/1.1 is answered 400 code 13 and its connection closed; a TLS handshake is
 * closed at once, without waiting for the request-head timeout (set to a minute here).
 */
class ProtocolMismatchIT {
  private static TestGateway gateway;

  @BeforeAll
  static void start() {
    gateway =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL",
                TestGateway.shared().databaseUrl(),
                "LVG_HTTP_HEAD_TIMEOUT_MS",
                "60000"));
  }

  @AfterAll
  static void stop() {
    gateway.gateway.close();
  }

  /** Everything the gateway sends back before it closes the connection (read for at most 30 s). */
  private static String exchange(byte[] request) throws Exception {
    try (Socket socket = new Socket("127.0.0.1", gateway.gateway.apiPort())) {
      socket.setSoTimeout(30_000);
      socket.getOutputStream().write(request);
      socket.getOutputStream().flush();
      InputStream in = socket.getInputStream();
      ByteArrayOutputStream answer = new ByteArrayOutputStream();
      in.transferTo(answer);
      return answer.toString(StandardCharsets.UTF_8);
    }
  }

  @Test
  void everyOtherHttpVersionGetsA400WithItsCodeAndTheConnectionClosed() throws Exception {
    for (String version :
        List.of("HTTP/2.0", "HTTP/1.2", "HTTP/0.9", "FOO/1.1", "HTTP/3", "HTTP/1.1x", "http/1.1")) {
      String answer =
          exchange(
              ("POST /v1/namespace/ns/describe " + version + "\r\nHost: g\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      assertThat(answer).as(version).startsWith("HTTP/1.").contains(" 400 Bad Request\r\n");
      assertThat(answer.toLowerCase()).as(version).contains("connection: close");
      JsonNode body = new ObjectMapper().readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
      assertThat(body.get("code").asInt()).as(version).isEqualTo(13);
      assertThat(body.get("status").asInt()).as(version).isEqualTo(400);
    }
    String preface =
        exchange("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(preface).contains(" 400 Bad Request\r\n").contains("\"code\":13");
    // The versions it serves are served.
    assertThat(
            exchange(
                "GET /v1/namespace/ns/describe HTTP/1.0\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)))
        .startsWith("HTTP/1.0 ")
        .doesNotContain(" 400 ");
  }

  @Test
  void aTlsHandshakeOnThePlainPortIsClosedAtOnce() throws Exception {
    long started = System.nanoTime();
    String answer = exchange(HexFormat.of().parseHex("16030100a5010000a10303"));
    long millis = (System.nanoTime() - started) / 1_000_000;
    assertThat(answer).isEmpty();
    // Well short of the one-minute head timeout that would otherwise close it.
    assertThat(millis).isLessThan(20_000);
  }
}
