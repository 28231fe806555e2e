package dev.lvg.auth;

import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.Requests;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.ext.web.RoutingContext;

/**
 * Resolves the tenant of a request: from an API key ({@code x-api-key}, or {@code identity.api_key}
 * in the body) or, when a token issuer is configured, from a bearer token ({@code Authorization:
 * Bearer}, or {@code identity.auth_token}). Headers win over the body, and an API key over a token.
 */
public final class Authentication implements Handler<RoutingContext> {
  private static final String BEARER = "bearer ";
  private static final String TENANT = "lvg.tenant";

  private final TenantDirectory tenants;
  private final BearerTokens bearerTokens;

  /** {@code bearerTokens} null: bearer tokens are refused. */
  public Authentication(TenantDirectory tenants, BearerTokens bearerTokens) {
    this.tenants = tenants;
    this.bearerTokens = bearerTokens;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Future<Tenant> tenant;
    try {
      tenant = resolve(ctx);
    } catch (ApiException refused) {
      ctx.fail(refused);
      return;
    }
    tenant.onComplete(
        result -> {
          if (result.failed()) {
            ctx.fail(result.cause());
          } else if (result.result() == null) {
            ctx.fail(ApiException.unauthenticated("the API key is not valid"));
          } else {
            ctx.put(TENANT, result.result());
            ctx.next();
          }
        });
  }

  /**
   * Who is asking, known without a database call, for fair admission before authentication: the
   * tenant of a recently seen API key, else the key's or token's hash.
   */
  public String requester(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key != null) {
      String hash = TenantDirectory.hash(key.trim());
      Tenant tenant = tenants.recentlyAuthenticated(hash);
      return tenant != null ? "tenant:" + tenant.id() : "key:" + hash.substring(0, 16);
    }
    String authorization = ctx.request().getHeader("Authorization");
    return authorization != null
        ? "token:" + TenantDirectory.hash(authorization).substring(0, 16)
        : "anonymous";
  }

  /** The tenant this request was authenticated as. */
  public static Tenant tenant(RoutingContext ctx) {
    return ctx.get(TENANT);
  }

  private Future<Tenant> resolve(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key != null) {
      return apiKey(key);
    }
    String authorization = ctx.request().getHeader("Authorization");
    if (authorization != null) {
      if (!authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
        throw ApiException.unauthenticated("the Authorization header must be 'Bearer <token>'");
      }
      return bearer(authorization.substring(BEARER.length()).trim());
    }
    Body body = bodyForIdentity(ctx);
    if (body.identityApiKey() != null) {
      return apiKey(body.identityApiKey());
    }
    if (body.identityAuthToken() != null) {
      return bearer(body.identityAuthToken());
    }
    throw ApiException.unauthenticated("credentials are missing: send the API key in x-api-key");
  }

  private Future<Tenant> apiKey(String key) {
    if (key.isBlank()) {
      throw ApiException.unauthenticated("credentials are missing: send the API key in x-api-key");
    }
    return tenants.authenticate(key.trim());
  }

  private Future<Tenant> bearer(String token) {
    if (bearerTokens == null) {
      throw ApiException.unauthenticated(
          "bearer tokens are not accepted by this gateway; send the API key in x-api-key");
    }
    if (token.isEmpty()) {
      throw ApiException.unauthenticated("the bearer token is empty");
    }
    return bearerTokens.tenantOf(token);
  }

  /**
   * A malformed body carries no usable identity; its own error is reported after authentication.
   */
  private static Body bodyForIdentity(RoutingContext ctx) {
    try {
      return Requests.body(ctx);
    } catch (ApiException malformed) {
      return Body.of(null);
    }
  }
}
