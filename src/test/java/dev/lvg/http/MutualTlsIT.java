package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lvg.Api;
import dev.lvg.TestGateway;
import dev.lvg.tenancy.ClientCertificates;
import java.io.FileInputStream;
import java.io.IOException;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Mutual TLS on the API listener ({@code LVG_TLS_CLIENT_CA}): a certificate the client CA signed
 * acts, through curl and through a Java client, as the principal its identity is registered as; no
 * certificate, another CA's, an expired one and a revoked one are refused; the client CA file
 * replaced on disk is taken without a restart. Every certificate is made here with the JDK's
 * keytool: two CAs, the gateway's own, and clients signed by them.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MutualTlsIT {
  private static final String PASS = "changeit";
  private static final String ADMIN = "admin-" + UUID.randomUUID();
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static Path dir;
  private static Path clientCa;
  private static TestGateway gw;
  private static SSLContext trustingOnly;
  private static KeyStore serverTrust;
  private static String tenant;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("lvg-mtls-");
    Keytool.gatewayCertificate(store("gateway"), PASS);
    KeyStore gateway = load("gateway");
    Files.writeString(
        dir.resolve("gateway.pem"),
        Keytool.pem("CERTIFICATE", gateway.getCertificate("gateway").getEncoded()));
    Files.writeString(
        dir.resolve("gateway-key.pem"),
        Keytool.pem(
            "PRIVATE KEY",
            ((PrivateKey) gateway.getKey("gateway", PASS.toCharArray())).getEncoded()));
    for (String ca : List.of("ca1", "ca2")) {
      Keytool.run(
          "-genkeypair",
          "-alias",
          "ca",
          "-keyalg",
          "EC",
          "-groupname",
          "secp256r1",
          "-dname",
          "CN=" + ca,
          "-ext",
          "bc:c",
          "-validity",
          "2",
          "-storetype",
          "PKCS12",
          "-keystore",
          store(ca),
          "-storepass",
          PASS);
      Keytool.run(
          "-exportcert",
          "-rfc",
          "-alias",
          "ca",
          "-keystore",
          store(ca),
          "-storepass",
          PASS,
          "-file",
          dir.resolve(ca + ".pem").toString());
    }
    client("writer1", "ca1", "CN=writer-1,O=acme", "SAN=dns:writer-1.acme", null);
    client("writer2", "ca1", "CN=writer-2,O=acme", "SAN=dns:writer-2.acme", null);
    client("stranger", "ca2", "CN=stranger,O=acme", "SAN=dns:stranger.acme", null);
    client("expired", "ca1", "CN=expired,O=acme", "SAN=dns:expired.acme", "-3d");
    clientCa = dir.resolve("client-ca.pem");
    Files.copy(dir.resolve("ca1.pem"), clientCa);

    serverTrust = KeyStore.getInstance("PKCS12");
    serverTrust.load(null, null);
    serverTrust.setCertificateEntry("gateway", gateway.getCertificate("gateway"));
    trustingOnly = context(null);
    gw =
        TestGateway.dedicated(
            Map.of(
                "LVG_DB_URL", TestGateway.shared().databaseUrl(),
                "LVG_TLS_CERT", dir.resolve("gateway.pem").toString(),
                "LVG_TLS_KEY", dir.resolve("gateway-key.pem").toString(),
                "LVG_TLS_CLIENT_CA", clientCa.toString(),
                "LVG_TLS_RELOAD_S", "1",
                "LVG_ADMIN_API_KEY", ADMIN,
                "LVG_ADMIN_LISTENER", "own"));
    tenant = "mtls-" + UUID.randomUUID().toString().substring(0, 8);
    admin("POST", "/admin/v1/tenants", "{\"name\":\"" + tenant + "\"}");
    for (String identity :
        List.of(
            "dns:writer-1.acme", "CN=writer-2,O=acme", "dns:stranger.acme", "dns:expired.acme")) {
      admin(
          "POST",
          "/admin/v1/tenants/" + tenant + "/certificates",
          "{\"identity\":\"" + identity + "\"}");
      admin(
          "POST",
          "/admin/v1/tenants/" + tenant + "/grants",
          "{\"grantee\":\"cert:" + identity + "\",\"right\":\"manage\",\"namespace\":[\"certs\"]}");
    }
    admin(
        "POST",
        "/admin/v1/tenants/" + tenant + "/grants",
        "{\"grantee\":\"role:owner\",\"right\":\"manage\"}");
    admin(
        "POST",
        "/admin/v1/tenants/" + tenant + "/roles/owner/members",
        "{\"member\":\"cert:dns:writer-1.acme\"}");
  }

  @AfterAll
  static void stop() {
    gw.gateway.close();
  }

  @Test
  @Order(1)
  void aCertificateTheCaSignedActsAsItsRegisteredIdentityThroughJavaAndCurl() throws Exception {
    HttpResponse<String> created = call("writer1", "POST", "/v1/namespace/certs/create", "{}");
    assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    HttpResponse<String> declared = call("writer1", "POST", "/v1/table/certs%24t/declare", "{}");
    assertThat(declared.statusCode()).as(declared.body()).isEqualTo(200);
    JsonNode caller = MAPPER.readTree(call("writer1", "GET", "/v1/whoami", null).body());
    assertThat(caller.get("tenant").asText()).isEqualTo(tenant);

    Process curl =
        new ProcessBuilder(
                "curl",
                "-sS",
                "--cacert",
                dir.resolve("gateway.pem").toString(),
                "--cert",
                dir.resolve("writer2.crt").toString(),
                "--key",
                dir.resolve("writer2-key.pem").toString(),
                "-X",
                "POST",
                "-d",
                "{}",
                "https://127.0.0.1:" + gw.gateway.apiPort() + "/v1/table/certs%24t/describe")
            .redirectErrorStream(true)
            .start();
    String out = new String(curl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(curl.exitValue()).as(out).isZero();
    assertThat(MAPPER.readTree(out).has("location")).as(out).isTrue();

    // Its grants decide as for any credential: outside them, as if missing.
    HttpResponse<String> outside = call("writer2", "POST", "/v1/namespace/other/create", "{}");
    assertThat(outside.statusCode()).as(outside.body()).isEqualTo(403);
  }

  @Test
  @Order(2)
  void noCertificateAnotherCasAndAnExpiredOneAreRefused() throws Exception {
    assertThatThrownBy(() -> send(trustingOnly, "GET", "/v1/whoami", null))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> call("stranger", "GET", "/v1/whoami", null))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> call("expired", "GET", "/v1/whoami", null))
        .isInstanceOf(IOException.class);
    Process curl =
        new ProcessBuilder(
                "curl",
                "-sS",
                "--cacert",
                dir.resolve("gateway.pem").toString(),
                "https://127.0.0.1:" + gw.gateway.apiPort() + "/v1/whoami")
            .redirectErrorStream(true)
            .start();
    curl.getInputStream().readAllBytes();
    assertThat(curl.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(curl.exitValue()).isNotZero();
  }

  /** Last: it changes the client CA file, which the others rely on. */
  @Test
  @Order(3)
  void aRevokedCertificateIsRefusedWithinASecondAndARotatedCaIsTakenWithoutARestart()
      throws Exception {
    // writer2 is used by the curl test too; revocation is checked on a third certificate.
    client("writer3", "ca1", "CN=writer-3,O=acme", "SAN=dns:writer-3.acme", null);
    admin(
        "POST",
        "/admin/v1/tenants/" + tenant + "/certificates",
        "{\"identity\":\"dns:writer-3.acme\"}");
    admin(
        "POST",
        "/admin/v1/tenants/" + tenant + "/grants",
        "{\"grantee\":\"cert:dns:writer-3.acme\",\"right\":\"read\"}");
    assertThat(call("writer3", "GET", "/v1/whoami", null).statusCode()).isEqualTo(200);
    String fingerprint =
        ClientCertificates.fingerprint((X509Certificate) load("writer3").getCertificate("client"));
    admin(
        "POST",
        "/admin/v1/tenants/" + tenant + "/certificates/revoke",
        "{\"fingerprint\":\"" + fingerprint + "\"}");
    long deadline = System.nanoTime() + 1_000_000_000L;
    int status = 200;
    while (status != 401 && System.nanoTime() < deadline) {
      status = call("writer3", "GET", "/v1/whoami", null).statusCode();
    }
    assertThat(status).isEqualTo(401);
    JsonNode listed =
        MAPPER.readTree(admin("GET", "/admin/v1/tenants/" + tenant + "/certificates", null));
    assertThat(listed.get("revoked").toString()).contains(fingerprint);

    // The client CA file now holds both CAs: the second CA's certificate gets through.
    Path next = dir.resolve("next-ca.pem");
    Files.writeString(
        next, Files.readString(dir.resolve("ca1.pem")) + Files.readString(dir.resolve("ca2.pem")));
    Files.move(next, clientCa, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    long until = System.nanoTime() + 10_000_000_000L;
    Integer reached = null;
    while (reached == null && System.nanoTime() < until) {
      try {
        reached = call("stranger", "GET", "/v1/whoami", null).statusCode();
      } catch (IOException notYet) {
        Thread.sleep(200);
      }
    }
    assertThat(reached)
        .as("the second CA's client within 10 s of the file's change")
        .isEqualTo(200);
    assertThat(call("writer1", "GET", "/v1/whoami", null).statusCode()).isEqualTo(200);
  }

  // Certificates.

  private static String store(String name) {
    return dir.resolve(name + ".p12").toString();
  }

  private static KeyStore load(String name) throws Exception {
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (FileInputStream in = new FileInputStream(store(name))) {
      keys.load(in, PASS.toCharArray());
    }
    return keys;
  }

  /** A client key pair in {@code name}.p12 with a certificate {@code ca} signed, and its PEMs. */
  private static void client(String name, String ca, String dname, String san, String start)
      throws Exception {
    Keytool.run(
        "-genkeypair",
        "-alias",
        "client",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        dname,
        "-storetype",
        "PKCS12",
        "-keystore",
        store(name),
        "-storepass",
        PASS);
    String csr = dir.resolve(name + ".csr").toString();
    Keytool.run(
        "-certreq", "-alias", "client", "-keystore", store(name), "-storepass", PASS, "-file", csr);
    List<String> sign =
        new ArrayList<>(
            List.of(
                "-gencert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                store(ca),
                "-storepass",
                PASS,
                "-infile",
                csr,
                "-outfile",
                dir.resolve(name + ".crt").toString(),
                "-ext",
                san,
                "-validity",
                "1"));
    if (start != null) {
      sign.addAll(List.of("-startdate", start));
    }
    Keytool.run(sign.toArray(String[]::new));
    Keytool.run(
        "-importcert",
        "-noprompt",
        "-alias",
        "ca",
        "-file",
        dir.resolve(ca + ".pem").toString(),
        "-keystore",
        store(name),
        "-storepass",
        PASS);
    Keytool.run(
        "-importcert",
        "-noprompt",
        "-alias",
        "client",
        "-file",
        dir.resolve(name + ".crt").toString(),
        "-keystore",
        store(name),
        "-storepass",
        PASS);
    Files.writeString(
        dir.resolve(name + "-key.pem"),
        Keytool.pem(
            "PRIVATE KEY",
            ((PrivateKey) load(name).getKey("client", PASS.toCharArray())).getEncoded()));
  }

  // Clients.

  /** A TLS context trusting the gateway's certificate, presenting {@code client}'s (or none). */
  private static SSLContext context(String client) throws Exception {
    TrustManagerFactory trust =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(serverTrust);
    KeyManagerFactory keys = null;
    if (client != null) {
      keys = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      keys.init(load(client), PASS.toCharArray());
    }
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keys == null ? null : keys.getKeyManagers(), trust.getTrustManagers(), null);
    return context;
  }

  private static HttpResponse<String> call(String client, String method, String path, String body)
      throws Exception {
    return send(context(client), method, path, body);
  }

  private static HttpResponse<String> send(
      SSLContext context, String method, String path, String body) throws Exception {
    return request(context, gw.gateway.apiPort(), null, method, path, body);
  }

  /** An admin call on the admin listener (TLS, no client certificate asked); 200 expected. */
  private static String admin(String method, String path, String body) throws Exception {
    HttpResponse<String> answer =
        request(trustingOnly, gw.gateway.adminPort(), ADMIN, method, path, body);
    assertThat(answer.statusCode()).as(method + " " + path + ": " + answer.body()).isEqualTo(200);
    return answer.body();
  }

  /** A request over HTTP/1.1 and TLS to {@code port}, with {@code apiKey} when not null. */
  private static HttpResponse<String> request(
      SSLContext context, int port, String apiKey, String method, String path, String body)
      throws Exception {
    return HttpClient.newBuilder()
        .sslContext(context)
        .version(HttpClient.Version.HTTP_1_1)
        .build()
        .send(
            Api.request("https://localhost:" + port, method, path, body, apiKey),
            HttpResponse.BodyHandlers.ofString());
  }
}
