package dev.lvg.config;

import java.util.Map;

/**
 * Whether an empty {@code LVG_DB_URL} may start an embedded PostgreSQL ({@value #SETTING}): yes by
 * default, but not inside a Kubernetes pod, where it would be one database per replica, gone with
 * the pod; there it must be chosen explicitly.
 */
final class EmbeddedDatabaseChoice {
  static final String SETTING = "LVG_EMBEDDED_DB";

  private EmbeddedDatabaseChoice() {}

  /** Makes the setting false when it is not given and {@code environment} is a pod's. */
  static void defaultFor(Map<String, String> settings, Map<String, String> environment) {
    String given = settings.get(SETTING);
    if ((given == null || given.isBlank()) && environment.containsKey("KUBERNETES_SERVICE_HOST")) {
      settings.put(SETTING, "false");
    }
  }

  /** Stops start-up when there is no database URL and no embedded database may start. */
  static void check(String dbUrl, Settings settings) {
    if (dbUrl.isEmpty() && !settings.bool(SETTING, true)) {
      throw new ConfigException(
          "LVG_DB_URL is empty and "
              + SETTING
              + " is false (its default inside a Kubernetes pod): set LVG_DB_URL to the PostgreSQL"
              + " to use, postgresql://user:pass@host:port/db, or "
              + SETTING
              + "=true to run an embedded one in LVG_DATA_DIR");
    }
  }
}
