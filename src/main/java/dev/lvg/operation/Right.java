package dev.lvg.operation;

import java.util.Locale;

/**
 * What a credential may do inside its tenant: {@link #READ} lists, describes and checks existence,
 * {@link #WRITE} changes state; {@link #ADMIN} (bearer tokens only) manages tenants and keys.
 */
public enum Right {
  READ,
  WRITE,
  ADMIN;

  /** The name credentials carry: {@code read}, {@code write}, {@code admin}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
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
