package dev.lvg.overload;

/** Why a {@link ConcurrencyLimiter} admitted a request. */
public enum Grant {
  /** A slot under the limit was free. */
  FREE_SLOT,
  /** Over the limit, on a slot borrowed from tenants holding more than their shares. */
  BORROWED_SLOT,
  /** Over the limit, because the tenant asked for little of what was served. */
  LITTLE_DEMAND,
  /** After waiting for a freed slot. */
  WAITED
}
