package dev.lvg.config;

/** A setting is missing or invalid; the message names the key. */
public final class ConfigException extends RuntimeException {
  public ConfigException(String message) {
    super(message);
  }
}
