package dev.lvg.operation;

import java.util.Locale;

/**
 * What a credential may do. Inside a tenant the rights are ordered, each including the ones before
 * it: {@link #READ} lists, describes and checks existence, {@link #WRITE} commits versions and
 * changes a table's tags and branches, {@link #MANAGE} creates, drops and renames namespaces and
 * tables. {@link #ADMIN} (the operator's key and admin tokens only) manages tenants and keys; it
 * includes no right inside a tenant and none includes it.
 */
public enum Right {
  READ,
  WRITE,
  MANAGE,
  ADMIN;

  /** The name credentials and grants carry: {@code read}, {@code write}, {@code manage}, … */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Whether holding this right lets one do what {@code needed} allows. */
  public boolean includes(Right needed) {
    return this == ADMIN || needed == ADMIN ? this == needed : ordinal() >= needed.ordinal();
  }

  /** The right of that name, or null. */
  public static Right of(String label) {
    for (Right right : values()) {
      if (right.label().equals(label)) {
        return right;
      }
    }
    return null;
  }
}
