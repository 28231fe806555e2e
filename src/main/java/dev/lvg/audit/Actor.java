package dev.lvg.audit;

import dev.lvg.auth.Authentication;
import dev.lvg.http.Body;
import dev.lvg.http.RequestIds;
import dev.lvg.http.Requests;
import dev.lvg.http.Secrets;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Who makes a change, for the audit trail: the tenant, the credential's name (an API key's id, a
 * token's subject; never a secret), the request id, and the caller's context (the body's {@code
 * context} and the {@code x-lance-ctx-*} headers older clients send), as JSON.
 */
public record Actor(Tenant tenant, String credential, String requestId, String context) {
  static final String HEADER_PREFIX = "x-lance-ctx-";
  static final int MAX_ENTRIES = 32;
  static final int MAX_KEY = 128;
  static final int MAX_VALUE = 1024;

  /** The authenticated request's actor; its body's {@code context} must be a map of strings. */
  public static Actor of(RoutingContext ctx) {
    Principal principal = Authentication.principal(ctx);
    Body body = Requests.body(ctx);
    Map<String, String> given = new LinkedHashMap<>();
    ctx.request()
        .headers()
        .forEach(
            header -> {
              if (header
                  .getKey()
                  .regionMatches(true, 0, HEADER_PREFIX, 0, HEADER_PREFIX.length())) {
                given.put(header.getKey().substring(HEADER_PREFIX.length()), header.getValue());
              }
            });
    Map<String, String> inBody = body.optionalStringMap("context");
    if (inBody != null) {
      given.putAll(inBody);
    }
    Secrets secrets = Authentication.secrets(ctx);
    return new Actor(
        principal.tenant(),
        principal.credential(),
        secrets.redact(RequestIds.of(ctx.request())),
        context(given, secrets));
  }

  /** This actor with {@code entries} added to its context (they win over the caller's). */
  public Actor withContext(Map<String, String> entries) {
    Map<String, String> merged = new LinkedHashMap<>();
    new JsonObject(context)
        .forEach(entry -> merged.put(entry.getKey(), String.valueOf(entry.getValue())));
    merged.putAll(entries);
    return new Actor(
        tenant, credential, requestId, new JsonObject(new LinkedHashMap<>(merged)).encode());
  }

  /** An actor outside any request: an operator's command, say. */
  public static Actor of(Tenant tenant, String credential, String requestId) {
    return new Actor(tenant, credential, requestId, "{}");
  }

  /**
   * {@code given} as the JSON recorded: entries whose key names a credential dropped, any of the
   * request's own credentials (or the operator key) redacted wherever else it appears, at most
   * {@value #MAX_ENTRIES} entries, keys and values cut to {@value #MAX_KEY} and {@value #MAX_VALUE}
   * characters.
   */
  static String context(Map<String, String> given, Secrets secrets) {
    Map<String, Object> kept = new LinkedHashMap<>();
    for (Map.Entry<String, String> entry : given.entrySet()) {
      if (kept.size() == MAX_ENTRIES) {
        break;
      }
      if (!Secrets.namesSecret(entry.getKey())) {
        kept.put(
            cut(secrets.redact(entry.getKey()), MAX_KEY),
            cut(secrets.redact(entry.getValue()), MAX_VALUE));
      }
    }
    return new JsonObject(kept).encode();
  }

  private static String cut(String text, int max) {
    if (text.length() <= max) {
      return text;
    }
    // Never half a surrogate pair: PostgreSQL refuses JSON holding one.
    return text.substring(0, Character.isHighSurrogate(text.charAt(max - 1)) ? max - 1 : max);
  }
}
