package dev.lvg.tenancy;

import dev.lvg.operation.Right;

/**
 * Who a request acts as: its tenant, what its credential may do where ({@link Access}), the
 * credential itself for the logs (an API key's id or a token's subject; never a secret), and when
 * the credential expires (epoch milliseconds; {@link #NEVER} for a key without expiry).
 */
public record Principal(Tenant tenant, Access access, String credential, long expiresAtMillis) {
  public static final long NEVER = Long.MAX_VALUE;

  /** Whether it holds {@code right} on the whole tenant (for admin: at all). */
  public boolean may(Right right) {
    return access.onTenant(right);
  }
}
