package dev.lvg.auth;

import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.RequestIds;
import dev.lvg.http.Requests;
import dev.lvg.http.Secrets;
import dev.lvg.tenancy.ClientCertificates;
import dev.lvg.tenancy.KeyDigest;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.function.Supplier;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Resolves the tenant of a request: from an API key ({@code x-api-key}, or {@code identity.api_key}
 * in the body) or, when a token issuer is configured, from a bearer token ({@code Authorization:
 * Bearer}, or {@code identity.auth_token}); without either, under mutual TLS, from the client
 * certificate. Headers win over the body, and an API key over a token.
 */
public final class Authentication implements Handler<RoutingContext> {
  private static final String BEARER = "bearer ";
  private static final String TENANT = "lvg.tenant";
  private static final String PRINCIPAL = "lvg.principal";
  private static final String SECRETS = "lvg.secrets";
  private static final String AGAIN = "lvg.authenticate-again";

  /**
   * The one requester of every credential not yet resolved to a tenant: an API key no lookup has
   * resolved, a bearer token not yet verified (or sent where none is accepted), whether new or made
   * up. As requesters of their own, any number of made-up credentials would each take a fair share.
   */
  public static final String UNRESOLVED = "unresolved-credentials";

  private final TenantDirectory tenants;
  private final BearerTokens bearerTokens;
  private final String operatorKey;

  /**
   * {@code bearerTokens} null: bearer tokens are refused. {@code operatorKey} (or null) is kept out
   * of what requests record, like each request's own credential.
   */
  public Authentication(TenantDirectory tenants, BearerTokens bearerTokens, String operatorKey) {
    this.tenants = tenants;
    this.bearerTokens = bearerTokens;
    this.operatorKey = operatorKey;
  }

  @Override
  public void handle(RoutingContext ctx) {
    Supplier<Future<Principal>> credential;
    Future<Principal> principal;
    try {
      credential = credential(ctx);
      principal = credential.get();
    } catch (ApiException refused) {
      ctx.fail(refused);
      return;
    }
    ctx.put(AGAIN, credential);
    Body identity = bodyForIdentity(ctx);
    Secrets secrets =
        Secrets.of(
            ctx.request(), operatorKey, identity.identityApiKey(), identity.identityAuthToken());
    ctx.put(SECRETS, secrets);
    if (secrets.foundIn(RequestIds.of(ctx.request()))) {
      // A request id is written to every log line about the request: never a credential.
      RequestIds.renew(ctx.request());
    }
    principal.onComplete(
        result -> {
          if (result.failed()) {
            ctx.fail(result.cause());
          } else if (result.result() == null) {
            ctx.fail(ApiException.unauthenticated("the API key is not valid"));
          } else if (result.result().tenant() == null) {
            ctx.fail(
                new ApiException(
                    ErrorCode.PERMISSION_DENIED,
                    "the bearer token has no '"
                        + bearerTokens.tenantClaim()
                        + "' claim naming a tenant"));
          } else {
            ctx.put(PRINCIPAL, result.result());
            ctx.put(TENANT, result.result().tenant());
            ctx.next();
          }
        });
  }

  /**
   * Who is asking, known without a database call, for fair admission before authentication: the
   * tenant an API key was last resolved to or a bearer token was verified for, else {@link
   * #UNRESOLVED}; {@code anonymous} without either.
   */
  public String requester(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    String key = request.getHeader("x-api-key");
    if (key != null) {
      String hash = KeyDigest.hash(key.trim());
      Tenant known = tenants.lastResolvedTenant(hash);
      return known != null ? requesterOf(known.id()) : UNRESOLVED;
    }
    String authorization = request.getHeader("Authorization");
    if (authorization == null) {
      X509Certificate certificate = peerCertificate(request);
      if (certificate == null) {
        return "anonymous";
      }
      Tenant known =
          tenants.lastResolvedTenant("cert:" + ClientCertificates.fingerprint(certificate));
      return known != null ? requesterOf(known.id()) : UNRESOLVED;
    }
    String token = bearerTokens == null ? null : bearerToken(authorization);
    Tenant verified = token == null ? null : tenants.lastVerifiedTenant(KeyDigest.hash(token));
    return verified != null ? requesterOf(verified.id()) : UNRESOLVED;
  }

  /** The requester admission control names a tenant by. */
  public static String requesterOf(long tenantId) {
    return "tenant:" + tenantId;
  }

  /** The tenant this request was authenticated as. */
  public static Tenant tenant(RoutingContext ctx) {
    return ctx.get(TENANT);
  }

  /** The credentials this request carried, which nothing it records may hold. */
  public static Secrets secrets(RoutingContext ctx) {
    return ctx.get(SECRETS);
  }

  /** Who this request was authenticated as: tenant, rights and credential. */
  public static Principal principal(RoutingContext ctx) {
    return ctx.get(PRINCIPAL);
  }

  /**
   * What authenticates the request's credential, each time it is called, as the credential stands
   * then: the request is authenticated with it once, and a request that stays open (a live tail)
   * again whenever credentials change, so it ends once its own no longer holds.
   */
  public static Supplier<Future<Principal>> again(RoutingContext ctx) {
    return ctx.get(AGAIN);
  }

  /** How the credential of {@code ctx} is authenticated: from a header, else from the body. */
  private Supplier<Future<Principal>> credential(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key != null) {
      return () -> apiKey(key);
    }
    String authorization = ctx.request().getHeader("Authorization");
    if (authorization != null) {
      String token = bearerToken(authorization);
      if (token == null) {
        throw ApiException.unauthenticated("the Authorization header must be 'Bearer <token>'");
      }
      return () -> bearer(token);
    }
    Body body = bodyForIdentity(ctx);
    if (body.identityApiKey() != null) {
      return () -> apiKey(body.identityApiKey());
    }
    if (body.identityAuthToken() != null) {
      return () -> bearer(body.identityAuthToken());
    }
    X509Certificate certificate = peerCertificate(ctx.request());
    if (certificate != null) {
      return () -> tenants.authenticate(certificate);
    }
    throw ApiException.unauthenticated("credentials are missing: send the API key in x-api-key");
  }

  /**
   * The client certificate the TLS handshake verified (mutual TLS), or null: a plain connection, or
   * none was asked for.
   */
  private static X509Certificate peerCertificate(HttpServerRequest request) {
    if (!request.isSSL() || request.sslSession() == null) {
      return null;
    }
    try {
      Certificate[] chain = request.sslSession().getPeerCertificates();
      return chain.length > 0 && chain[0] instanceof X509Certificate first ? first : null;
    } catch (SSLPeerUnverifiedException none) {
      return null;
    }
  }

  /** The token of an {@code Authorization: Bearer <token>} header, or null for another scheme. */
  private static String bearerToken(String authorization) {
    return authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())
        ? authorization.substring(BEARER.length()).trim()
        : null;
  }

  private Future<Principal> apiKey(String key) {
    if (key.isBlank()) {
      throw ApiException.unauthenticated("credentials are missing: send the API key in x-api-key");
    }
    return tenants.authenticate(key.trim());
  }

  private Future<Principal> bearer(String token) {
    if (bearerTokens == null) {
      throw ApiException.unauthenticated(
          "bearer tokens are not accepted by this gateway; send the API key in x-api-key");
    }
    if (token.isEmpty()) {
      throw ApiException.unauthenticated("the bearer token is empty");
    }
    return bearerTokens
        .principalOf(token)
        .onSuccess(
            principal -> {
              // Remembered so that admission knows whose load the token's next requests are.
              if (principal != null && principal.tenant() != null) {
                tenants.rememberVerifiedToken(KeyDigest.hash(token), principal);
              }
            });
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
