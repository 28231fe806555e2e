package dev.lvg.config;

/**
 * Where the admin API (and with it the operator key) is served: on a listener of its own, on
 * loopback unless told otherwise ({@code LVG_ADMIN_LISTENER=own}, {@code LVG_ADMIN_HOST}, {@code
 * LVG_ADMIN_PORT}; TLS with the API's certificate when it has one), or on the API port ({@code
 * api}). The own listener serves the console and the tenant API as well, so an operator on it needs
 * nothing else; the API port then refuses the admin API.
 */
public record AdminListener(boolean own, String host, int port) {
  static AdminListener from(Settings s) {
    return new AdminListener(
        s.choice("LVG_ADMIN_LISTENER", "own", "api").equals("own"),
        s.string("LVG_ADMIN_HOST", "127.0.0.1"),
        s.integer("LVG_ADMIN_PORT", 2335, 0, 65535));
  }

  /**
   * Why the operator key of {@code config} would travel in clear (accepted over plain HTTP on an
   * address other machines can reach, where anyone on the path could read it), or null.
   */
  public String clearTextWarning(GatewayConfig config) {
    if (config.adminApiKey() == null || config.tls()) {
      return null;
    }
    String listening = own ? host : config.host();
    if (loopback(listening)) {
      return null;
    }
    return "the operator key (LVG_ADMIN_API_KEY) is accepted over plain HTTP on "
        + listening
        + ", which other machines can reach: serve the admin API on loopback"
        + " (LVG_ADMIN_LISTENER=own, LVG_ADMIN_HOST=127.0.0.1) or turn on TLS (LVG_TLS_CERT,"
        + " LVG_TLS_KEY)";
  }

  /** Whether {@code host} names only this machine: a listener there cannot be reached from afar. */
  public static boolean loopback(String host) {
    return host.equals("localhost")
        || host.equals("::1")
        || host.equals("[::1]")
        || host.startsWith("127.");
  }
}
