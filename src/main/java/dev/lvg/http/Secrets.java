package dev.lvg.http;

import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The credentials one request carries (its API key, its bearer token, an identity in its body) and
 * the operator key: values that no audit record and no log line may hold, under whatever name they
 * are sent. A value equal to one of them is replaced whole; a longer one has each occurrence cut
 * out.
 */
public final class Secrets {
  public static final String REDACTED = "[redacted]";

  /** Shorter credentials are matched only as whole values: as substrings they would cut words. */
  static final int MIN_SUBSTRING = 6;

  private static final String BEARER = "bearer ";

  private final List<String> values;

  private Secrets(List<String> values) {
    this.values = List.copyOf(values);
  }

  /**
   * The credentials of {@code request}'s headers ({@code x-api-key}, {@code Authorization}), {@code
   * more} (an identity read from its body), and {@code operatorKey}; nulls and blanks are skipped.
   */
  public static Secrets of(HttpServerRequest request, String operatorKey, String... more) {
    List<String> found = new ArrayList<>(4);
    add(found, request.getHeader("x-api-key"));
    String authorization = request.getHeader("Authorization");
    if (authorization != null) {
      add(found, authorization);
      if (authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        add(found, authorization.substring(BEARER.length()));
      }
    }
    for (String value : more) {
      add(found, value);
    }
    add(found, operatorKey);
    return new Secrets(found);
  }

  private static void add(List<String> found, String value) {
    if (value != null && !value.isBlank()) {
      found.add(value.trim());
    }
  }

  /** Whether {@code text} holds one of the credentials. */
  public boolean foundIn(String text) {
    return text != null && !redact(text).equals(text);
  }

  /** {@code text} with every credential in it replaced by {@value #REDACTED}. */
  public String redact(String text) {
    if (text == null) {
      return null;
    }
    String result = text;
    for (String secret : values) {
      if (result.trim().equals(secret)) {
        return REDACTED;
      }
      if (secret.length() >= MIN_SUBSTRING && result.contains(secret)) {
        result = result.replace(secret, REDACTED);
      }
    }
    return result;
  }

  /**
   * Whether the name {@code key} says its value is a credential: it holds one of the words
   * credentials go by, in any case and with or without separators ({@code X-Auth}, {@code
   * access_key}, {@code passPhrase}).
   */
  public static boolean namesSecret(String key) {
    String folded = key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]", "");
    for (String word : SECRET_WORDS) {
      if (folded.contains(word)) {
        return true;
      }
    }
    return false;
  }

  private static final String[] SECRET_WORDS = {
    "auth", // authorization, authentication, x-auth, auth-token
    "bearer",
    "token",
    "jwt",
    "secret",
    "pass", // password, passwd, passphrase, passcode
    "pwd",
    "apikey",
    "accesskey",
    "privatekey",
    "private",
    "credential",
    "cookie",
    "session",
    "signature",
    "otp"
  };
}
