package dev.lvg.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.AdminCaller;
import dev.lvg.auth.Routes;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.http.Requests;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.ClientCertificates;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Pool;

/**
 * Client certificates (mutual TLS) on the admin API: the identities registered for a tenant, each
 * then the grantee {@code cert:<identity>}, and the fingerprints of revoked certificates.
 */
record CertificateRoutes(ClientCertificates certificates) {
  CertificateRoutes(Pool pool) {
    this(new ClientCertificates(pool));
  }

  void mount(Routes routes) {
    routes.json(GatewayOperation.REGISTER_CERTIFICATE, this::register);
    routes.json(GatewayOperation.LIST_CERTIFICATES, this::list);
    routes.json(GatewayOperation.REMOVE_CERTIFICATE, this::remove);
    routes.json(GatewayOperation.REVOKE_CERTIFICATE, this::revoke);
  }

  private Future<ObjectNode> register(RoutingContext ctx) {
    String identity = Requests.requiredBody(ctx).requiredNonEmptyString("identity");
    return certificates
        .register(AdminCaller.of(ctx), ctx.pathParam("tenant"), identity)
        .map(done -> Json.object().put("identity", identity).put("grantee", "cert:" + identity));
  }

  private Future<ObjectNode> list(RoutingContext ctx) {
    return certificates
        .list(ctx.pathParam("tenant"))
        .map(
            listed -> {
              ObjectNode answer = Json.object();
              listed.identities().forEach(answer.putArray("identities")::add);
              listed.revoked().forEach(answer.putArray("revoked")::add);
              return answer;
            });
  }

  private Future<ObjectNode> remove(RoutingContext ctx) {
    String identity = ctx.queryParams().get("identity");
    if (identity == null || identity.isEmpty()) {
      throw ApiException.invalidInput("the query parameter 'identity' names the one to remove");
    }
    return certificates
        .remove(AdminCaller.of(ctx), ctx.pathParam("tenant"), identity)
        .compose(
            removed ->
                removed
                    ? Future.succeededFuture(
                        Json.object().put("identity", identity).put("removed", true))
                    : Future.failedFuture(
                        new ApiException(
                            ErrorCode.NAMESPACE_NOT_FOUND,
                            "tenant '"
                                + ctx.pathParam("tenant")
                                + "' has no identity '"
                                + identity
                                + "'")));
  }

  private Future<ObjectNode> revoke(RoutingContext ctx) {
    String fingerprint = Requests.requiredBody(ctx).requiredNonEmptyString("fingerprint");
    return certificates
        .revoke(AdminCaller.of(ctx), ctx.pathParam("tenant"), fingerprint)
        .map(done -> Json.object().put("fingerprint", fingerprint).put("revoked", true));
  }
}
