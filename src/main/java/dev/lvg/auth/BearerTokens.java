package dev.lvg.auth;

import dev.lvg.config.GatewayConfig;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.oauth2.OAuth2Auth;
import io.vertx.ext.auth.oauth2.OAuth2Options;
import java.net.URI;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bearer tokens: JWTs validated locally (signature, expiry, audience, and the issuer when
 * configured) against the keys the issuer publishes at its JWKS URL, refreshed when a token names a
 * key not seen yet. The token's tenant claim names the tenant: an invalid token is 401 code 16, a
 * valid one without a known tenant 403 code 15.
 */
public final class BearerTokens {
  private static final Logger LOG = LoggerFactory.getLogger(BearerTokens.class);

  private final OAuth2Auth oauth2;
  private final String tenantClaim;
  private final TenantDirectory tenants;

  private BearerTokens(OAuth2Auth oauth2, String tenantClaim, TenantDirectory tenants) {
    this.oauth2 = oauth2;
    this.tenantClaim = tenantClaim;
    this.tenants = tenants;
  }

  /**
   * Loads the issuer's keys once before the gateway serves, so the first tokens are not refused; an
   * unreachable JWKS is logged and retried when a token arrives, and API keys work meanwhile.
   */
  public static Future<BearerTokens> create(
      Vertx vertx, GatewayConfig.OAuth2Settings settings, TenantDirectory tenants) {
    URI jwks = URI.create(settings.jwksUrl());
    JWTOptions jwt = new JWTOptions();
    if (settings.issuer() != null) {
      jwt.setIssuer(settings.issuer());
    }
    jwt.setAudience(List.of(settings.audience()));
    OAuth2Options options =
        new OAuth2Options()
            .setClientId(settings.audience())
            .setSite(jwks.getScheme() + "://" + jwks.getRawAuthority())
            .setJwkPath(
                jwks.getRawPath() + (jwks.getRawQuery() == null ? "" : "?" + jwks.getRawQuery()))
            .setJWTOptions(jwt);
    OAuth2Auth oauth2 = OAuth2Auth.create(vertx, options);
    oauth2.missingKeyHandler(
        keyId ->
            oauth2
                .jWKSet()
                .onFailure(
                    error ->
                        LOG.warn("cannot load the JWKS from {}: {}", jwks, error.getMessage())));
    BearerTokens tokens = new BearerTokens(oauth2, settings.tenantClaim(), tenants);
    return oauth2
        .jWKSet()
        .onFailure(error -> LOG.warn("cannot load the JWKS from {}: {}", jwks, error.getMessage()))
        .transform(loaded -> Future.succeededFuture(tokens));
  }

  public Future<Tenant> tenantOf(String token) {
    return oauth2
        .authenticate(new TokenCredentials(token))
        .recover(
            invalid ->
                Future.failedFuture(ApiException.unauthenticated("the bearer token is not valid")))
        .compose(
            user -> {
              String tenantName = claim(user);
              if (tenantName == null) {
                return Future.failedFuture(
                    new ApiException(
                        ErrorCode.PERMISSION_DENIED,
                        "the bearer token has no '" + tenantClaim + "' claim naming a tenant"));
              }
              return tenants
                  .byName(tenantName)
                  .compose(
                      tenant ->
                          tenant != null
                              ? Future.succeededFuture(tenant)
                              : Future.failedFuture(
                                  new ApiException(
                                      ErrorCode.PERMISSION_DENIED,
                                      "the bearer token's tenant is not known to this gateway")));
            });
  }

  private String claim(User user) {
    JsonObject claims = user.attributes().getJsonObject("accessToken");
    Object value = claims == null ? null : claims.getValue(tenantClaim);
    return value instanceof String text && !text.isEmpty() ? text : null;
  }
}
