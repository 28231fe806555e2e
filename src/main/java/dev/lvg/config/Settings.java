package dev.lvg.config;

import java.util.List;
import java.util.Map;

/** Typed access to the {@code LVG_*} settings, each validated with its key in the error. */
record Settings(Map<String, String> values) {
  String string(String key, String defaultValue) {
    String value = values.get(key);
    return value == null || value.isBlank() ? defaultValue : value.trim();
  }

  /** One of {@code allowed}, the first being the default. */
  String choice(String key, String... allowed) {
    String value = string(key, allowed[0]);
    if (!List.of(allowed).contains(value)) {
      throw new ConfigException(
          key + " must be " + String.join(" or ", allowed) + ", got '" + value + "'");
    }
    return value;
  }

  boolean bool(String key, boolean defaultValue) {
    String value = string(key, Boolean.toString(defaultValue));
    if (!value.equals("true") && !value.equals("false")) {
      throw new ConfigException(key + " must be true or false, got '" + value + "'");
    }
    return Boolean.parseBoolean(value);
  }

  int integer(String key, int defaultValue, int min, int max) {
    String value = values.get(key);
    if (value == null || value.isBlank()) {
      return defaultValue;
    }
    try {
      int parsed = Integer.parseInt(value.trim());
      if (parsed < min || parsed > max) {
        throw new ConfigException(
            key + " must be between " + min + " and " + max + ", got " + value);
      }
      return parsed;
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " must be an integer, got '" + value + "'");
    }
  }
}
