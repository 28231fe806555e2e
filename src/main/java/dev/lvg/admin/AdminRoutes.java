package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.audit.AuditTrail;
import dev.lvg.auth.AdminCaller;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.Body;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.Requests;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.Credentials;
import dev.lvg.tenancy.KeyRights;
import dev.lvg.tenancy.Tenants;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;
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

  public AdminRoutes(Pool pool) {
    this.pool = pool;
    this.credentials = new Credentials(pool);
    this.tenants = new Tenants(pool);
  }

  /** Serves every operation of the admin document, each behind the admin authorization. */
  public void mount(Routes routes) {
    routes.json(GatewayOperation.CREATE_TENANT, this::createTenant);
    routes.json(GatewayOperation.LIST_TENANTS, this::listTenants);
    routes.json(GatewayOperation.DELETE_TENANT, this::deleteTenant);
    routes.json(GatewayOperation.DISABLE_TENANT, ctx -> disabled(ctx, true));
    routes.json(GatewayOperation.ENABLE_TENANT, ctx -> disabled(ctx, false));
    routes.json(GatewayOperation.ISSUE_KEY, this::issueKey);
    routes.json(GatewayOperation.LIST_KEYS, this::keys);
    routes.json(GatewayOperation.REVOKE_KEY, this::revokeKey);
    routes.json(GatewayOperation.LIST_AUDIT_EVENTS, this::audit);
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
    KeyRights rights = AdminJson.keyRights(body);
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
            limit == null ? AuditTrail.DEFAULT_LIMIT : limit)
        .map(AdminJson::audit);
  }

  private static Credentials.Changer changer(RoutingContext ctx) {
    return AdminCaller.of(ctx);
  }
}
