package dev.lvg.auth;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A token issuer for tests: publishes its RSA keys at a real JWKS endpoint on loopback and signs
 * RS256 JWTs with them, as an OIDC provider does.
 */
public final class JwksIssuer implements AutoCloseable {
  public static final String ISSUER = "https://issuer.test";
  public static final String AUDIENCE = "lance-version-gateway";
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final List<Map<String, Object>> published = new CopyOnWriteArrayList<>();
  private final HttpServer server;
  public final KeyPair signing;

  public JwksIssuer() throws IOException, GeneralSecurityException {
    signing = rsa();
    publish("k1", signing);
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.createContext(
        "/.well-known/jwks.json",
        exchange -> {
          byte[] body = MAPPER.writeValueAsBytes(Map.of("keys", new ArrayList<>(published)));
          exchange.getResponseHeaders().add("Content-Type", "application/json");
          exchange.sendResponseHeaders(200, body.length);
          exchange.getResponseBody().write(body);
          exchange.close();
        });
    server.start();
  }

  /** The gateway settings that make it accept this issuer's tokens. */
  public Map<String, String> gatewaySettings() {
    return Map.of(
        "LVG_OAUTH2_JWKS_URL",
        "http://127.0.0.1:" + server.getAddress().getPort() + "/.well-known/jwks.json",
        "LVG_OAUTH2_ISSUER",
        ISSUER,
        "LVG_OAUTH2_AUDIENCE",
        AUDIENCE);
  }

  public static KeyPair rsa() throws GeneralSecurityException {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    return generator.generateKeyPair();
  }

  /** Publishes {@code pair}'s public key under {@code keyId}. */
  public void publish(String keyId, KeyPair pair) {
    RSAPublicKey key = (RSAPublicKey) pair.getPublic();
    published.add(
        Map.of(
            "kty",
            "RSA",
            "kid",
            keyId,
            "use",
            "sig",
            "alg",
            "RS256",
            "n",
            b64(unsigned(key.getModulus())),
            "e",
            b64(unsigned(key.getPublicExponent()))));
  }

  /**
   * Claims valid for five minutes, naming {@code tenant} (if not null) and granting {@code scope}.
   */
  public static Map<String, Object> claims(String tenant, String scope) {
    long now = System.currentTimeMillis() / 1000;
    Map<String, Object> claims = new LinkedHashMap<>();
    claims.put("iss", ISSUER);
    claims.put("aud", AUDIENCE);
    claims.put("sub", "writer-1");
    claims.put("iat", now);
    claims.put("exp", now + 300);
    if (tenant != null) {
      claims.put("tenant", tenant);
    }
    if (scope != null) {
      claims.put("scope", scope);
    }
    return claims;
  }

  /** A JWT with {@code claims}, signed by {@code pair} under {@code keyId}. */
  public static String token(KeyPair pair, String keyId, Map<String, Object> claims)
      throws IOException, GeneralSecurityException {
    String header =
        b64(MAPPER.writeValueAsBytes(Map.of("alg", "RS256", "typ", "JWT", "kid", keyId)));
    String payload = b64(MAPPER.writeValueAsBytes(claims));
    Signature rs256 = Signature.getInstance("SHA256withRSA");
    rs256.initSign(pair.getPrivate());
    rs256.update((header + "." + payload).getBytes(StandardCharsets.US_ASCII));
    return header + "." + payload + "." + b64(rs256.sign());
  }

  /** A token of this issuer's signing key with {@code claims}. */
  public String token(Map<String, Object> claims) throws IOException, GeneralSecurityException {
    return token(signing, "k1", claims);
  }

  private static String b64(byte[] bytes) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  private static byte[] unsigned(BigInteger value) {
    byte[] bytes = value.toByteArray();
    return bytes[0] == 0 ? Arrays.copyOfRange(bytes, 1, bytes.length) : bytes;
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
