package dev.lvg.http;

import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Resolves the tenant of a request from its API key: the {@code x-api-key} header, or else
 * {@code identity.api_key} in the body. Headers win over the body. Bearer tokens are refused until
 * a token issuer is configured.
 */
public final class Authentication implements Handler<RoutingContext> {
  private final TenantDirectory tenants;

  public Authentication(TenantDirectory tenants) {
    this.tenants = tenants;
  }

  @Override
  public void handle(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key == null) {
      if (ctx.request().getHeader("Authorization") != null) {
        ctx.fail(ApiException.unauthenticated(
            "bearer tokens are not accepted by this gateway; send the API key in x-api-key"));
        return;
      }
      key = apiKeyFromBody(ctx);
    }
    if (key == null || key.isBlank()) {
      ctx.fail(ApiException.unauthenticated("credentials are missing: send the API key in x-api-key"));
      return;
    }
    tenants.authenticate(key.trim()).onComplete(result -> {
      if (result.failed()) {
        ctx.fail(result.cause());
      } else if (result.result() == null) {
        ctx.fail(ApiException.unauthenticated("the API key is not valid"));
      } else {
        Requests.setTenant(ctx, result.result());
        ctx.next();
      }
    });
  }

  /** A malformed body carries no usable identity; its own error is reported after authentication. */
  private static String apiKeyFromBody(RoutingContext ctx) {
    try {
      return Requests.body(ctx).identityApiKey();
    } catch (ApiException malformed) {
      return null;
    }
  }
}
