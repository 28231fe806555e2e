package dev.lvg.http;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * The bounds every request is held to, wherever its contract declares none: a string holds at most
 * {@value #MAX_STRING} characters, a list {@value #MAX_ITEMS} items, a map {@value #MAX_PROPERTIES}
 * entries, an integer fits in 64 bits. Fields with tighter bounds declare them in their contract
 * (the admin document's feed filters, say) or in the code that reads them (an id: at most 64 parts
 * of 200 bytes). A request past a bound is refused with 400 code 13 naming the field and the bound,
 * before its operation runs: no request can hand the database work proportional to an unbounded
 * input.
 */
public final class Bounds {
  public static final int MAX_STRING = 4096;
  public static final int MAX_ITEMS = 1000;
  public static final int MAX_PROPERTIES = 256;

  private Bounds() {}

  /** {@code value} of field {@code name}, refused past {@value #MAX_STRING} characters. */
  static String string(String name, String value) {
    if (value.length() > MAX_STRING) {
      throw ApiException.invalidInput(
          "'" + name + "' holds " + value.length() + " characters; at most " + MAX_STRING);
    }
    return value;
  }

  /** Refuses a list {@code name} of {@code size} items past {@code max}. */
  static void items(String name, int size, int max) {
    if (size > max) {
      throw ApiException.invalidInput("'" + name + "' holds " + size + " items; at most " + max);
    }
  }

  /** Refuses a map {@code name} of {@code size} entries past {@value #MAX_PROPERTIES}. */
  static void properties(String name, int size) {
    if (size > MAX_PROPERTIES) {
      throw ApiException.invalidInput(
          "'" + name + "' holds " + size + " entries; at most " + MAX_PROPERTIES);
    }
  }

  /**
   * Gives every schema of a contract used to check requests (its components and each operation's
   * parameters and request body; answers are not checked) the default bounds where it declares
   * none.
   */
  static void declare(JsonObject document) {
    JsonObject components = document.getJsonObject("components", new JsonObject());
    components
        .getJsonObject("schemas", new JsonObject())
        .forEach(entry -> schema(entry.getValue()));
    components
        .getJsonObject("parameters", new JsonObject())
        .forEach(entry -> schema(((JsonObject) entry.getValue()).getValue("schema")));
    components
        .getJsonObject("requestBodies", new JsonObject())
        .forEach(entry -> content((JsonObject) entry.getValue()));
    JsonObject paths = document.getJsonObject("paths", new JsonObject());
    for (Map.Entry<String, Object> path : paths) {
      if (!(path.getValue() instanceof JsonObject item)) {
        continue;
      }
      for (Map.Entry<String, Object> entry : item) {
        if (entry.getValue() instanceof JsonArray parameters) {
          parameters(parameters);
        } else if (entry.getValue() instanceof JsonObject operation) {
          parameters(operation.getJsonArray("parameters", new JsonArray()));
          content(operation.getJsonObject("requestBody", new JsonObject()));
        }
      }
    }
  }

  /** The schemas of a request body's media types. */
  private static void content(JsonObject body) {
    body.getJsonObject("content", new JsonObject())
        .forEach(type -> schema(((JsonObject) type.getValue()).getValue("schema")));
  }

  private static void parameters(JsonArray parameters) {
    for (Object parameter : parameters) {
      if (parameter instanceof JsonObject declared) {
        schema(declared.getValue("schema"));
      }
    }
  }

  /** Adds the default bounds to {@code node} and every schema inside it. */
  private static void schema(Object node) {
    if (node instanceof JsonArray list) {
      list.forEach(Bounds::schema);
      return;
    }
    if (!(node instanceof JsonObject schema) || schema.containsKey("$ref")) {
      return;
    }
    if (declares(schema, "string")) {
      schema.getMap().putIfAbsent("maxLength", MAX_STRING);
    }
    if (declares(schema, "array")) {
      schema.getMap().putIfAbsent("maxItems", MAX_ITEMS);
    }
    if (declares(schema, "object")) {
      schema.getMap().putIfAbsent("maxProperties", MAX_PROPERTIES);
    }
    if (declares(schema, "integer") || declares(schema, "number")) {
      schema.getMap().putIfAbsent("maximum", Long.MAX_VALUE);
      schema.getMap().putIfAbsent("minimum", Long.MIN_VALUE);
    }
    for (String nested : new String[] {"items", "additionalProperties", "propertyNames", "not"}) {
      schema(schema.getValue(nested));
    }
    for (String list : new String[] {"allOf", "anyOf", "oneOf", "prefixItems"}) {
      schema(schema.getValue(list));
    }
    JsonObject properties = schema.getJsonObject("properties");
    if (properties != null) {
      properties.forEach(property -> schema(property.getValue()));
    }
  }

  /** Whether {@code schema}'s type is, or includes, {@code type}. */
  static boolean declares(JsonObject schema, String type) {
    Object declared = schema.getValue("type");
    return type.equals(declared) || declared instanceof JsonArray types && types.contains(type);
  }
}
