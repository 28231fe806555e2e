package dev.lvg.admin;

import dev.lvg.auth.Routes;
import dev.lvg.platform.Feature;

/**
 * Tenants, their keys, grants and roles on the admin API, with the audit trail; and for every
 * caller, what admission is doing ({@code /v1/admission}) and who it is ({@code /v1/whoami}).
 */
public final class AdminModule extends Feature {
  public AdminModule() {
    super("admin");
  }

  @Override
  public void routes(Routes routes) {
    new AdminRoutes(platform().pools().writes()).mount(routes);
    new GrantRoutes(platform().pools().writes()).mount(routes);
    new CertificateRoutes(platform().pools().writes()).mount(routes);
    new AdmissionRoutes(platform().pools().writes(), platform().limits().report()).mount(routes);
    new CallerRoutes().mount(routes);
  }
}
