package dev.lvg.tenancy;

import java.util.Set;

/**
 * Who a request acts as: its tenant, the rights its credential grants, and the credential itself
 * for the logs (an API key's id or a token's subject; never a secret).
 */
public record Principal(Tenant tenant, Set<Right> rights, String credential) {
  public boolean may(Right right) {
    return rights.contains(right);
  }
}
