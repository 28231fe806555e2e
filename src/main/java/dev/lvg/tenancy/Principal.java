package dev.lvg.tenancy;

import dev.lvg.operation.Right;
import java.util.Set;

/**
 * Who a request acts as: its tenant, the rights its credential grants, the credential itself for
 * the logs (an API key's id or a token's subject; never a secret), and when the credential expires
 * (epoch milliseconds; {@link #NEVER} for a key without expiry).
 */
public record Principal(Tenant tenant, Set<Right> rights, String credential, long expiresAtMillis) {
  public static final long NEVER = Long.MAX_VALUE;

  public boolean may(Right right) {
    return rights.contains(right);
  }
}
