package dev.lvg.config;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS on the API port: the PEM certificate chain and private key ({@code LVG_TLS_CERT}, {@code
 * LVG_TLS_KEY}); with {@code LVG_TLS_CLIENT_CA}, mutual TLS: every client presents a certificate
 * that CA (a PEM bundle) signed. The files are read again every {@code reloadSeconds} ({@code
 * LVG_TLS_RELOAD_S}) and, when one changed, the listeners take them for new connections without a
 * restart.
 */
public record TlsSettings(Path cert, Path key, Path clientCa, int reloadSeconds) {
  static final TlsSettings OFF = new TlsSettings(null, null, null, 0);

  /** Whether the API port speaks TLS. */
  public boolean on() {
    return cert != null;
  }

  /** Whether clients must present a certificate the client CA signed. */
  public boolean mutual() {
    return clientCa != null;
  }

  static TlsSettings from(Settings s) {
    Path cert = readable(s, "LVG_TLS_CERT", "LVG_TLS_KEY");
    Path key = readable(s, "LVG_TLS_KEY", "LVG_TLS_CERT");
    String ca = s.string("LVG_TLS_CLIENT_CA", "");
    Path clientCa = null;
    if (!ca.isEmpty()) {
      if (cert == null) {
        throw new ConfigException(
            "LVG_TLS_CLIENT_CA needs TLS on the API port: set LVG_TLS_CERT and LVG_TLS_KEY");
      }
      clientCa = existing("LVG_TLS_CLIENT_CA", ca);
    }
    return new TlsSettings(cert, key, clientCa, s.integer("LVG_TLS_RELOAD_S", 30, 1, 86_400));
  }

  /** The file named by {@code key} (which must be set together with {@code partner}), or null. */
  private static Path readable(Settings s, String key, String partner) {
    String value = s.string(key, "");
    if (value.isEmpty() != s.string(partner, "").isEmpty()) {
      throw new ConfigException(key + " and " + partner + " must be set together");
    }
    return value.isEmpty() ? null : existing(key, value);
  }

  private static Path existing(String key, String value) {
    Path path = Path.of(value);
    if (!Files.isReadable(path)) {
      throw new ConfigException(key + ": cannot read " + path);
    }
    return path;
  }
}
