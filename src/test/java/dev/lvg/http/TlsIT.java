package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lvg.TestGateway;
import java.io.FileInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Map;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * With LVG_TLS_CERT and LVG_TLS_KEY (PEM) the API port speaks TLS, HTTP/2 through ALPN and
 * HTTP/1.1; the certificate is made here with the JDK's keytool.
 */
class TlsIT {
  private static TestGateway gw;
  private static SSLContext trusting;
  private static String key;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("lvg-tls-");
    Path store = dir.resolve("gateway.p12");
    Keytool.gatewayCertificate(store.toString(), "changeit");
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (FileInputStream in = new FileInputStream(store.toFile())) {
      keys.load(in, "changeit".toCharArray());
    }
    Certificate certificate = keys.getCertificate("gateway");
    PrivateKey privateKey = (PrivateKey) keys.getKey("gateway", "changeit".toCharArray());
    Path cert = dir.resolve("cert.pem");
    Path keyFile = dir.resolve("key.pem");
    Files.writeString(cert, Keytool.pem("CERTIFICATE", certificate.getEncoded()));
    Files.writeString(keyFile, Keytool.pem("PRIVATE KEY", privateKey.getEncoded()));

    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("gateway", certificate);
    TrustManagerFactory factory =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    trusting = SSLContext.getInstance("TLS");
    trusting.init(null, factory.getTrustManagers(), null);

    gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_TLS_CERT", cert.toString(),
                "LVG_TLS_KEY", keyFile.toString()));
    key = gw.newTenant("tls");
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
  }

  private static HttpResponse<String> post(HttpClient.Version version, String path, String body)
      throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(trusting).version(version).build();
    return client.send(
        HttpRequest.newBuilder(URI.create("https://localhost:" + gw.gateway.apiPort() + path))
            .header("x-api-key", key)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void theApiSpeaksHttp2AndHttp11OverTls() throws Exception {
    HttpResponse<String> created = post(HttpClient.Version.HTTP_2, "/v1/namespace/s/create", "{}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    assertThat(created.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(created.headers().firstValue("x-request-id")).isPresent();

    HttpResponse<String> declared =
        post(HttpClient.Version.HTTP_1_1, "/v1/table/s%24t/declare", "{}");
    assertThat(declared.statusCode()).as(declared.body()).isEqualTo(200);
    assertThat(declared.version()).isEqualTo(HttpClient.Version.HTTP_1_1);

    HttpResponse<String> missing =
        post(HttpClient.Version.HTTP_2, "/v1/table/s%24missing/describe", "{}");
    assertThat(missing.statusCode()).isEqualTo(404);
    assertThat(missing.body()).contains("\"code\":4");
  }

  @Test
  void plainHttpIsNotServedOnATlsPort() {
    assertThatThrownBy(
            () ->
                HttpClient.newHttpClient()
                    .send(
                        HttpRequest.newBuilder(
                                URI.create(
                                    "http://127.0.0.1:"
                                        + gw.gateway.apiPort()
                                        + "/v1/namespace/s/describe"))
                            .timeout(java.time.Duration.ofSeconds(15))
                            .POST(HttpRequest.BodyPublishers.ofString("{}"))
                            .build(),
                        HttpResponse.BodyHandlers.ofString()))
        .isInstanceOf(java.io.IOException.class);
  }
}
