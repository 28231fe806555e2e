package dev.lvg;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Request URIs with broken percent-escapes get the JSON error body with code 13 (sent over a raw
 * socket: HTTP clients refuse to send such URIs).
 */
class MalformedUriIT {
  @ParameterizedTest
  @ValueSource(
      strings = {
        "/v1/table/%zz/describe",
        "/v1/table/%/describe",
        "/v1/table/%2/describe",
        "/v1/namespace/ns/table/list?delimiter=%"
      })
  void brokenPercentEscapesAre400WithCode13(String target) throws Exception {
    TestGateway gw = TestGateway.shared();
    String key = gw.newTenant("uri");
    URI base = URI.create(gw.baseUrl);
    try (Socket socket = new Socket(base.getHost(), base.getPort())) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("POST "
                  + target
                  + " HTTP/1.1\r\nHost: localhost\r\nx-api-key: "
                  + key
                  + "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close"
                  + "\r\n\r\n{}")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      assertThat(response).startsWith("HTTP/1.1 400");
      assertThat(response.toLowerCase()).contains("content-type: application/json");
      JsonNode body =
          new ObjectMapper().readTree(response.substring(response.indexOf("\r\n\r\n") + 4));
      assertThat(body.get("code").asInt()).isEqualTo(13);
      assertThat(body.get("error").asText()).contains("'%'");
    }
  }
}
