package dev.lvg.tenancy;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/** The digest an API key (or a bearer token) is stored and looked up by: SHA-256, in hex. */
public final class KeyDigest {
  private KeyDigest() {}

  /** Looking a digest up costs more than using it; every thread keeps one. */
  private static final ThreadLocal<MessageDigest> SHA_256 =
      ThreadLocal.withInitial(
          () -> {
            try {
              return MessageDigest.getInstance("SHA-256");
            } catch (NoSuchAlgorithmException e) {
              throw new IllegalStateException("SHA-256 is not available", e);
            }
          });

  public static String hash(String apiKey) {
    return HexFormat.of().formatHex(SHA_256.get().digest(apiKey.getBytes(StandardCharsets.UTF_8)));
  }
}
