package dev.lvg.feed;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.List;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signatures as Standard Webhooks 1.0 defines them: a secret is {@code whsec_} and the base64 of
 * its key; a signature is {@code v1,} and the base64 of the HMAC-SHA256, under that key, of {@code
 * webhook-id.webhook-timestamp.body}; several signatures (during a rotation) are separated by
 * spaces.
 */
public final class WebhookSigner {
  static final String PREFIX = "whsec_";
  private static final SecureRandom RANDOM = new SecureRandom();

  private WebhookSigner() {}

  /** A new secret: 32 random bytes. */
  public static String newSecret() {
    byte[] key = new byte[32];
    RANDOM.nextBytes(key);
    return PREFIX + Base64.getEncoder().encodeToString(key);
  }

  /** The {@code webhook-signature} header's value: one signature per secret, in order. */
  public static String signature(List<String> secrets, String id, long timestamp, String body) {
    StringBuilder header = new StringBuilder();
    for (String secret : secrets) {
      if (header.length() > 0) {
        header.append(' ');
      }
      header.append("v1,").append(sign(secret, id + "." + timestamp + "." + body));
    }
    return header.toString();
  }

  private static String sign(String secret, String content) {
    byte[] key = Base64.getDecoder().decode(secret.substring(PREFIX.length()));
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return Base64.getEncoder()
          .encodeToString(mac.doFinal(content.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every Java runtime", e);
    }
  }
}
