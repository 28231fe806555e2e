package dev.lvg.auth;

import dev.lvg.config.GatewayConfig;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.oauth2.OAuth2Auth;
import io.vertx.ext.auth.oauth2.OAuth2Options;
import java.net.URI;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
  private final String roleClaim;
  private final TenantDirectory tenants;

  private final Map<Right, String> scopeNames;

  private BearerTokens(
      OAuth2Auth oauth2,
      String tenantClaim,
      String roleClaim,
      TenantDirectory tenants,
      Map<Right, String> scopeNames) {
    this.scopeNames = scopeNames;
    this.oauth2 = oauth2;
    this.tenantClaim = tenantClaim;
    this.roleClaim = roleClaim;
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
    BearerTokens tokens =
        new BearerTokens(
            oauth2,
            settings.tenantClaim(),
            settings.roleClaim(),
            tenants,
            Map.of(
                Right.READ, settings.readScope(),
                Right.WRITE, settings.writeScope(),
                Right.ADMIN, settings.adminScope()));
    return oauth2
        .jWKSet()
        .onFailure(error -> LOG.warn("cannot load the JWKS from {}: {}", jwks, error.getMessage()))
        .transform(loaded -> Future.succeededFuture(tokens));
  }

  /**
   * Who a valid token acts as: the tenant its tenant claim names (null when it names none, which
   * only the admin API accepts) and the rights its {@code scope} (space-separated) or {@code scp}
   * (array) claim grants under the configured names. An invalid token is 401 code 16; a token
   * naming an unknown or disabled tenant 403 code 15.
   */
  public Future<Principal> principalOf(String token) {
    return oauth2
        .authenticate(new TokenCredentials(token))
        .recover(
            invalid ->
                Future.failedFuture(ApiException.unauthenticated("the bearer token is not valid")))
        .compose(
            user -> {
              JsonObject claims = user.attributes().getJsonObject("accessToken");
              Set<Right> rights = rights(claims);
              Object subject = claims == null ? null : claims.getValue("sub");
              String credential = "token:" + (subject == null ? "(no subject)" : subject);
              String tenantName = text(claims, tenantClaim);
              long expires = expiresAtMillis(claims);
              if (tenantName == null) {
                return Future.succeededFuture(
                    new Principal(null, Access.of(rights, List.of()), credential, expires));
              }
              return tenants
                  .byName(tenantName)
                  .compose(
                      found -> {
                        if (found == null) {
                          return Future.failedFuture(
                              new ApiException(
                                  ErrorCode.PERMISSION_DENIED,
                                  "the bearer token's tenant is not known to this gateway"));
                        }
                        if (found.disabled()) {
                          return Future.failedFuture(
                              new ApiException(
                                  ErrorCode.PERMISSION_DENIED,
                                  "the bearer token's tenant is disabled on this gateway"));
                        }
                        return access(found.tenant(), rights, claims)
                            .map(
                                access ->
                                    new Principal(found.tenant(), access, credential, expires));
                      });
            });
  }

  /**
   * What a token of {@code tenant} may do there: its scopes; or, with a role claim configured, the
   * grants of that claim's values only (and the admin scope, which is not a right in the tenant).
   */
  private Future<Access> access(Tenant tenant, Set<Right> scopes, JsonObject claims) {
    if (roleClaim == null) {
      return Future.succeededFuture(Access.of(scopes, List.of()));
    }
    Set<Right> admin = scopes.contains(Right.ADMIN) ? Set.of(Right.ADMIN) : Set.of();
    List<String> values = new ArrayList<>();
    Object claim = claims == null ? null : claims.getValue(roleClaim);
    if (claim instanceof String text && !text.isEmpty()) {
      values.add(text);
    } else if (claim instanceof JsonArray array) {
      array.forEach(
          item -> {
            if (item instanceof String text && !text.isEmpty()) {
              values.add(text);
            }
          });
    }
    return values.isEmpty()
        ? Future.succeededFuture(Access.of(admin, List.of()))
        : tenants.accessOf(tenant, admin, values);
  }

  /** The claim that names the tenant, for messages. */
  public String tenantClaim() {
    return tenantClaim;
  }

  private Set<Right> rights(JsonObject claims) {
    Set<String> granted = new HashSet<>();
    if (claims != null) {
      Object scope = claims.getValue("scope");
      if (scope instanceof String text) {
        granted.addAll(List.of(text.trim().split("\\s+")));
      }
      Object scp = claims.getValue("scp");
      if (scp instanceof JsonArray array) {
        array.forEach(item -> granted.add(String.valueOf(item)));
      } else if (scp instanceof String text) {
        granted.addAll(List.of(text.trim().split("\\s+")));
      }
    }
    Set<Right> rights = EnumSet.noneOf(Right.class);
    scopeNames.forEach(
        (right, name) -> {
          if (granted.contains(name)) {
            rights.add(right);
          }
        });
    return Set.copyOf(rights);
  }

  /** The token's {@code exp} claim in epoch milliseconds; never, for a token without one. */
  private static long expiresAtMillis(JsonObject claims) {
    Object exp = claims == null ? null : claims.getValue("exp");
    return exp instanceof Number seconds
        ? Math.multiplyExact(seconds.longValue(), 1000L)
        : Principal.NEVER;
  }

  private static String text(JsonObject claims, String name) {
    Object value = claims == null ? null : claims.getValue(name);
    return value instanceof String text && !text.isEmpty() ? text : null;
  }
}
