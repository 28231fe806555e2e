package dev.lvg.config;

import java.util.HashMap;
import java.util.Map;

/** Requests per second per tenant (a token bucket of {@code burst}; 0: none), and overrides. */
public record TenantQuotas(int rate, int burst, Map<String, Quota> overrides) {
  /** One tenant's rate and burst. */
  public record Quota(int rate, int burst) {}

  public boolean any() {
    return rate > 0 || !overrides.isEmpty();
  }

  /** Reads {@code LVG_TENANT_RATE}, {@code LVG_TENANT_BURST} and {@code LVG_TENANT_RATES}. */
  static TenantQuotas from(Settings s) {
    int rate = s.integer("LVG_TENANT_RATE", 0, 0, 10_000_000);
    return new TenantQuotas(
        rate,
        s.integer("LVG_TENANT_BURST", Math.max(1, rate), 1, 10_000_000),
        overrides(s.string("LVG_TENANT_RATES", "")));
  }

  /** {@code tenant=rate[:burst],...}. */
  private static Map<String, Quota> overrides(String value) {
    Map<String, Quota> quotas = new HashMap<>();
    if (value.isEmpty()) {
      return Map.of();
    }
    for (String entry : value.split(",")) {
      String[] parts = entry.trim().split("[=:]");
      try {
        int rate = Integer.parseInt(parts[1].trim());
        int burst = parts.length > 2 ? Integer.parseInt(parts[2].trim()) : Math.max(1, rate);
        if (parts.length > 3 || parts[0].isBlank() || rate < 0 || burst < 1) {
          throw new NumberFormatException();
        }
        quotas.put(parts[0].trim(), new Quota(rate, burst));
      } catch (RuntimeException e) {
        throw new ConfigException(
            "LVG_TENANT_RATES must look like tenant=rate[:burst],..., got '" + entry + "'");
      }
    }
    return Map.copyOf(quotas);
  }
}
