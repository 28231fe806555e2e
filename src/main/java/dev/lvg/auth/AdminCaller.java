package dev.lvg.auth;

import dev.lvg.http.RequestIds;
import dev.lvg.tenancy.Credentials;
import io.vertx.ext.web.RoutingContext;

/**
 * Who an admin request acts as, once authorized: "operator" for the operator key, a token's subject
 * otherwise; every feature that administers something records its changes under it.
 */
public final class AdminCaller {
  private static final String KEY = "lvg.admin.changer";

  private AdminCaller() {}

  /** Marks {@code ctx} as authorized for the admin API under {@code credential}. */
  public static void set(RoutingContext ctx, String credential) {
    ctx.put(KEY, credential);
  }

  /** The caller of an authorized admin request, with its request id, for the audit trail. */
  public static Credentials.Changer of(RoutingContext ctx) {
    return new Credentials.Changer(ctx.get(KEY), RequestIds.of(ctx.request()));
  }
}
