package dev.lvg.auth;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.KeyDigest;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Who may call the admin API: the operator key {@code LVG_ADMIN_API_KEY} in {@code x-api-key}
 * (compared as a hash), or a bearer token that grants {@link Right#ADMIN}. With neither configured
 * every admin request gets 401.
 */
public final class AdminAuthorization implements Handler<RoutingContext> {
  private final byte[] adminKeyHash;
  private final BearerTokens bearerTokens;

  /** {@code adminApiKey} null and {@code bearerTokens} null: every admin request gets 401. */
  public AdminAuthorization(String adminApiKey, BearerTokens bearerTokens) {
    this.adminKeyHash =
        adminApiKey == null
            ? null
            : KeyDigest.hash(adminApiKey).getBytes(StandardCharsets.US_ASCII);
    this.bearerTokens = bearerTokens;
  }

  /**
   * The check every admin operation's chain runs after its body is read: the operator key, or a
   * bearer token that grants {@link Right#ADMIN}.
   */
  @Override
  public void handle(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key != null && adminKeyHash != null) {
      byte[] given = KeyDigest.hash(key.trim()).getBytes(StandardCharsets.US_ASCII);
      if (MessageDigest.isEqual(given, adminKeyHash)) {
        AdminCaller.set(ctx, "operator");
        ctx.next();
        return;
      }
      ctx.fail(ApiException.unauthenticated("the admin API key is not valid"));
      return;
    }
    String authorization = ctx.request().getHeader("Authorization");
    if (authorization != null
        && bearerTokens != null
        && authorization.regionMatches(true, 0, "bearer ", 0, 7)) {
      bearerTokens
          .principalOf(authorization.substring(7).trim())
          .onComplete(
              result -> {
                if (result.failed()) {
                  ctx.fail(result.cause());
                } else if (!result.result().may(Right.ADMIN)) {
                  ctx.fail(
                      new ApiException(
                          ErrorCode.PERMISSION_DENIED, "this token does not grant 'admin'"));
                } else {
                  AdminCaller.set(ctx, result.result().credential());
                  ctx.next();
                }
              });
      return;
    }
    ctx.fail(
        ApiException.unauthenticated(
            adminKeyHash == null && bearerTokens == null
                ? "the admin API is off: set LVG_ADMIN_API_KEY or configure bearer tokens"
                : "send the admin API key in x-api-key, or a bearer token with the admin scope"));
  }
}
