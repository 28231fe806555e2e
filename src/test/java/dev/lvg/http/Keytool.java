package dev.lvg.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The JDK's keytool for the TLS tests' certificates, and PEM as the gateway reads it. */
final class Keytool {
  private Keytool() {}

  /** Runs keytool with {@code args}; fails the test when it does not succeed. */
  static void run(String... args) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    command.addAll(List.of(args));
    Process keytool = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(keytool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(keytool.exitValue()).as(String.join(" ", args) + "\n" + out).isZero();
  }

  /**
   * A key pair and self-signed certificate for the gateway (EC P-256, {@code CN=localhost}, valid
   * for localhost and 127.0.0.1 for two days) in the PKCS12 store {@code store}, alias {@code
   * gateway}.
   */
  static void gatewayCertificate(String store, String password) throws Exception {
    run(
        "-genkeypair",
        "-alias",
        "gateway",
        "-keyalg",
        "EC",
        "-groupname",
        "secp256r1",
        "-dname",
        "CN=localhost",
        "-ext",
        "SAN=dns:localhost,ip:127.0.0.1",
        "-validity",
        "2",
        "-storetype",
        "PKCS12",
        "-keystore",
        store,
        "-storepass",
        password);
  }

  /** {@code der} as a PEM block of {@code type} (CERTIFICATE, PRIVATE KEY). */
  static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
