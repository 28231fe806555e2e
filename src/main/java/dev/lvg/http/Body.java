package dev.lvg.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Typed, validating access to the fields of a request body. Every accessor names the field in its
 * error, and a field that is absent or JSON {@code null} reads as not given.
 */
public final class Body {
  private static final Body EMPTY = new Body(Json.object());

  private final ObjectNode node;

  private Body(ObjectNode node) {
    this.node = node;
  }

  public static Body of(ObjectNode node) {
    return node == null ? EMPTY : new Body(node);
  }

  private JsonNode field(String name) {
    JsonNode value = node.get(name);
    return value == null || value.isNull() ? null : value;
  }

  /** True when the request had no body, an empty one or the literal {@code null}. */
  public boolean absent() {
    return this == EMPTY;
  }

  public boolean has(String name) {
    return field(name) != null;
  }

  public Long optionalLong(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw ApiException.invalidInput("'" + name + "' must be a 64-bit integer");
    }
    return value.longValue();
  }

  public long requiredLong(String name) {
    Long value = optionalLong(name);
    if (value == null) {
      throw ApiException.invalidInput("'" + name + "' is required");
    }
    return value;
  }

  public Long optionalNonNegativeLong(String name) {
    Long value = optionalLong(name);
    if (value != null && value < 0) {
      throw ApiException.invalidInput("'" + name + "' must be >= 0, got " + value);
    }
    return value;
  }

  public long requiredNonNegativeLong(String name) {
    Long value = optionalNonNegativeLong(name);
    if (value == null) {
      throw ApiException.invalidInput("'" + name + "' is required");
    }
    return value;
  }

  public String optionalString(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isTextual()) {
      throw ApiException.invalidInput("'" + name + "' must be a string");
    }
    if (value.textValue().indexOf('\u0000') >= 0) {
      // PostgreSQL text cannot hold NUL, and no name or path needs one.
      throw ApiException.invalidInput("'" + name + "' must not contain the NUL character");
    }
    return Bounds.string(name, value.textValue());
  }

  public String requiredNonEmptyString(String name) {
    String value = optionalString(name);
    if (value == null) {
      throw ApiException.invalidInput("'" + name + "' is required");
    }
    if (value.isEmpty()) {
      throw ApiException.invalidInput("'" + name + "' must not be empty");
    }
    return value;
  }

  public Boolean optionalBoolean(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isBoolean()) {
      throw ApiException.invalidInput("'" + name + "' must be a boolean");
    }
    return value.booleanValue();
  }

  /** A JSON object whose values are all strings, in the order given. */
  public Map<String, String> optionalStringMap(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isObject()) {
      throw ApiException.invalidInput("'" + name + "' must be an object of strings");
    }
    Bounds.properties(name, value.size());
    Map<String, String> result = new LinkedHashMap<>();
    Iterator<Map.Entry<String, JsonNode>> fields = value.fields();
    while (fields.hasNext()) {
      Map.Entry<String, JsonNode> entry = fields.next();
      if (!entry.getValue().isTextual()) {
        throw ApiException.invalidInput("'" + name + "." + entry.getKey() + "' must be a string");
      }
      String key = Bounds.string(name + " key", entry.getKey());
      result.put(key, Bounds.string(name + "." + key, entry.getValue().textValue()));
    }
    return result;
  }

  public List<String> optionalStringList(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isArray()) {
      throw ApiException.invalidInput("'" + name + "' must be an array of strings");
    }
    Bounds.items(name, value.size(), Bounds.MAX_ITEMS);
    List<String> result = new ArrayList<>(value.size());
    for (JsonNode item : value) {
      if (!item.isTextual()) {
        throw ApiException.invalidInput("'" + name + "' must be an array of strings");
      }
      result.add(Bounds.string(name + " item", item.textValue()));
    }
    return result;
  }

  /** A nested object, or {@code null} when absent. */
  public Body optionalObject(String name) {
    JsonNode value = field(name);
    if (value == null) {
      return null;
    }
    if (!value.isObject()) {
      throw ApiException.invalidInput("'" + name + "' must be an object");
    }
    return new Body((ObjectNode) value);
  }

  /** A required, non-empty array of objects of at most {@code max} items. */
  public List<Body> requiredObjectList(String name, int max) {
    return requiredObjectList(name, 1, max);
  }

  /** The array of objects {@code name}, required, with {@code min} to {@code max} items. */
  public List<Body> requiredObjectList(String name, int min, int max) {
    JsonNode value = field(name);
    if (value == null) {
      throw ApiException.invalidInput("'" + name + "' is required");
    }
    if (!value.isArray()) {
      throw ApiException.invalidInput("'" + name + "' must be an array of objects");
    }
    if (value.size() < min || value.size() > max) {
      throw ApiException.invalidInput(
          "'" + name + "' must hold " + min + " to " + max + " items, got " + value.size());
    }
    List<Body> result = new ArrayList<>(value.size());
    for (JsonNode item : value) {
      if (!item.isObject()) {
        throw ApiException.invalidInput("'" + name + "' must be an array of objects");
      }
      result.add(new Body((ObjectNode) item));
    }
    return result;
  }

  /** Names of the fields present (not null) among {@code names}. */
  public List<String> present(String... names) {
    List<String> result = new ArrayList<>();
    for (String name : names) {
      if (has(name)) {
        result.add(name);
      }
    }
    return result;
  }

  /** The {@code identity.api_key} a client may send in the body instead of a header. */
  public String identityApiKey() {
    return identity("api_key");
  }

  /** The {@code identity.auth_token} a client may send in the body instead of a header. */
  public String identityAuthToken() {
    return identity("auth_token");
  }

  private String identity(String name) {
    JsonNode identity = field("identity");
    if (identity == null || !identity.isObject()) {
      return null;
    }
    JsonNode value = identity.get(name);
    return value != null && value.isTextual() ? value.textValue() : null;
  }
}
