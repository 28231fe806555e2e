package dev.lvg.admin;

import dev.lvg.auth.Authentication;
import dev.lvg.auth.Routes;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.overload.AdmissionReport;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.util.HashMap;
import java.util.Map;

/**
 * The admission state: every class and requester for the operator ({@code GET
 * /admin/v1/admission}), a tenant's own counters for its keys ({@code GET /v1/admission}).
 */
public record AdmissionRoutes(Pool pool, AdmissionReport report) {
  static final String TENANT_NAMES = "SELECT id, name FROM tenants";

  public void mount(Routes routes) {
    routes.json(
        GatewayOperation.DESCRIBE_ADMISSION,
        ctx ->
            pool.query(TENANT_NAMES)
                .execute()
                .map(
                    rows -> {
                      Map<String, String> names = new HashMap<>();
                      for (Row row : rows) {
                        names.put(Authentication.requesterOf(row.getLong(0)), row.getString(1));
                      }
                      return report.all(names);
                    }));
    routes.json(
        GatewayOperation.DESCRIBE_OWN_ADMISSION,
        ctx -> {
          Tenant tenant = Authentication.tenant(ctx);
          return Future.succeededFuture(
              report.of(Authentication.requesterOf(tenant.id()), tenant.name()));
        });
  }
}
