package dev.lvg.tenancy;

import dev.lvg.operation.Right;
import java.util.List;
import java.util.Set;

/**
 * What a new key may do: {@code scopes} (read, write) on the whole tenant, and {@code grants} and
 * the {@code roles} it joins below it; at least one of the three.
 */
public record KeyRights(Set<Right> scopes, List<Access.Grant> grants, List<String> roles) {
  public KeyRights {
    scopes = Set.copyOf(scopes);
    grants = List.copyOf(grants);
    roles = List.copyOf(roles);
  }

  /** Rights on the whole tenant only, as keys always had. */
  public static KeyRights tenantWide(Set<Right> scopes) {
    return new KeyRights(scopes, List.of(), List.of());
  }
}
