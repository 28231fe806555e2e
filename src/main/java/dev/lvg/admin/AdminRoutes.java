package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.AuditTrail;
import dev.lvg.auth.AdminCaller;
import dev.lvg.auth.BearerTokens;
import dev.lvg.auth.Declaration;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.Operations;
import dev.lvg.http.Requests;
import dev.lvg.tenancy.Credentials;
import dev.lvg.tenancy.Right;
import dev.lvg.tenancy.TenantDirectory;
import dev.lvg.tenancy.Tenants;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin API under {@code /admin/v1} on the API port: tenants (listed, created, disabled,
 * enabled, deleted) and their API keys. Authorized by the operator key {@code LVG_ADMIN_API_KEY} in
 * {@code x-api-key} (compared as a hash) or by a bearer token granting the admin scope; answers are
 * JSON with the usual error body.
 */
public final class AdminRoutes {
  /** Where every path of the admin API starts. */
  public static final String PREFIX = "/admin/";

  private final Pool pool;
  private static final Logger LOG = LoggerFactory.getLogger(AdminRoutes.class);

  private final Credentials credentials;
  private final Tenants tenants;
  private final byte[] adminKeyHash;
  private final BearerTokens bearerTokens;

  /** {@code adminApiKey} null and {@code bearerTokens} null: every admin request gets 401. */
  public AdminRoutes(Pool pool, String adminApiKey, BearerTokens bearerTokens) {
    this.pool = pool;
    this.credentials = new Credentials(pool);
    this.tenants = new Tenants(pool);
    this.adminKeyHash =
        adminApiKey == null
            ? null
            : TenantDirectory.hash(adminApiKey).getBytes(StandardCharsets.US_ASCII);
    this.bearerTokens = bearerTokens;
  }

  /** Serves every operation of the admin document, each behind {@link #authorize}. */
  public void mount(Routes routes) {
    serve(routes, "CreateTenant", this::createTenant);
    serve(routes, "ListTenants", this::listTenants);
    serve(routes, "DeleteTenant", this::deleteTenant);
    serve(routes, "DisableTenant", ctx -> disabled(ctx, true));
    serve(routes, "EnableTenant", ctx -> disabled(ctx, false));
    serve(routes, "IssueKey", this::issueKey);
    serve(routes, "ListKeys", this::keys);
    serve(routes, "RevokeKey", this::revokeKey);
    serve(routes, "ListAuditEvents", this::audit);
  }

  private static void serve(
      Routes routes, String operationId, Function<RoutingContext, Future<ObjectNode>> op) {
    routes.serve(Declaration.administers(operationId), Operations.json(op::apply));
  }

  /**
   * The check every admin operation's chain runs after its body is read: the operator key, or a
   * bearer token that grants {@link Right#ADMIN}.
   */
  public void authorize(RoutingContext ctx) {
    String key = ctx.request().getHeader("x-api-key");
    if (key != null && adminKeyHash != null) {
      byte[] given = TenantDirectory.hash(key.trim()).getBytes(StandardCharsets.US_ASCII);
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

  private Future<ObjectNode> createTenant(RoutingContext ctx) {
    Body body = Requests.requiredBody(ctx);
    return credentials
        .createTenant(changer(ctx), body.requiredNonEmptyString("name"))
        .map(tenant -> AdminJson.tenant(tenant.name(), false));
  }

  private Future<ObjectNode> listTenants(RoutingContext ctx) {
    Integer limit = Requests.queryInteger(ctx, "limit");
    return tenants
        .page(ctx.queryParams().get("after"), limit == null ? Tenants.DEFAULT_LIMIT : limit)
        .map(AdminJson::tenants);
  }

  private Future<ObjectNode> deleteTenant(RoutingContext ctx) {
    String tenant = ctx.pathParam("tenant");
    boolean cascade = AdminJson.cascade(ctx.queryParams().get("behavior"));
    Credentials.Changer by = changer(ctx);
    return tenants
        .delete(tenant, cascade)
        .map(
            deletion -> {
              LOG.info(
                  "tenant '{}' deleted by {} (request {}): rows removed {}",
                  tenant,
                  by.credential(),
                  by.requestId(),
                  deletion.removed());
              return AdminJson.deleted(deletion);
            });
  }

  private Future<ObjectNode> disabled(RoutingContext ctx, boolean disabled) {
    String tenant = ctx.pathParam("tenant");
    return credentials
        .setDisabled(changer(ctx), tenant, disabled)
        .map(done -> AdminJson.tenant(tenant, disabled));
  }

  private Future<ObjectNode> issueKey(RoutingContext ctx) {
    Body body = Requests.body(ctx);
    List<String> scopes = body.optionalStringList("scopes");
    Set<Right> rights = AdminJson.rights(scopes == null ? List.of("read", "write") : scopes);
    Long expiresAt = body.optionalNonNegativeLong("expires_at");
    if (expiresAt != null && expiresAt <= System.currentTimeMillis()) {
      throw ApiException.invalidInput("'expires_at' must be in the future (epoch milliseconds)");
    }
    return credentials
        .issueKey(
            changer(ctx),
            ctx.pathParam("tenant"),
            rights,
            expiresAt,
            body.optionalString("description"))
        .map(AdminJson::issued);
  }

  private Future<ObjectNode> keys(RoutingContext ctx) {
    return credentials.keys(ctx.pathParam("tenant")).map(AdminJson::keys);
  }

  private Future<ObjectNode> revokeKey(RoutingContext ctx) {
    String keyId = ctx.pathParam("key_id");
    return credentials
        .revokeKey(changer(ctx), ctx.pathParam("tenant"), keyId)
        .compose(
            revoked ->
                revoked
                    ? Future.succeededFuture(
                        Json.object().put("key_id", keyId).put("revoked", true))
                    : Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_FOUND,
                            "tenant '" + ctx.pathParam("tenant") + "' has no key " + keyId)));
  }

  private Future<ObjectNode> audit(RoutingContext ctx) {
    Integer limit = Requests.queryInteger(ctx, "limit");
    return AuditTrail.page(
        pool,
        ctx.pathParam("tenant"),
        ctx.queryParams().get("after"),
        limit == null ? AuditTrail.DEFAULT_LIMIT : limit);
  }

  private static Credentials.Changer changer(RoutingContext ctx) {
    return AdminCaller.of(ctx);
  }
}
