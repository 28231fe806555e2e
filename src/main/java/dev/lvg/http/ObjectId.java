package dev.lvg.http;

import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;

/**
 * The identifier of a namespace or table: the {@code {id}} path segment split by the delimiter
 * ({@code $} unless {@code ?delimiter=} says otherwise). An id equal to the delimiter is the root
 * namespace. A non-empty {@code id} array in the body must name the same object.
 */
public final class ObjectId {
  public static final String DEFAULT_DELIMITER = "$";
  private static final int MAX_PART_LENGTH = 256;
  private static final int MAX_PARTS = 64;

  private ObjectId() {}

  public static List<String> fromRequest(RoutingContext ctx, Body body) {
    List<String> fromPath = parse(ctx.pathParam("id"), delimiter(ctx));
    List<String> fromBody = body.optionalStringList("id");
    if (fromBody != null && !fromBody.isEmpty() && !fromBody.equals(fromPath)) {
      throw ApiException.invalidInput(
          "body 'id' " + fromBody + " does not match the id in the path " + fromPath);
    }
    return fromPath;
  }

  /** The id of an entry in a batch, which carries no path: a required, non-empty array. */
  public static List<String> fromBody(Body body) {
    List<String> id = body.optionalStringList("id");
    if (id == null || id.isEmpty()) {
      throw ApiException.invalidInput("'id' is required and must name a table");
    }
    for (String part : id) {
      validateName(part);
    }
    return List.copyOf(id);
  }

  public static String delimiter(RoutingContext ctx) {
    String delimiter = ctx.queryParams().get("delimiter");
    if (delimiter == null) {
      return DEFAULT_DELIMITER;
    }
    if (delimiter.isEmpty()) {
      throw ApiException.invalidInput("'delimiter' must not be empty");
    }
    return delimiter;
  }

  public static List<String> parse(String id, String delimiter) {
    if (id == null || id.isEmpty()) {
      throw ApiException.invalidInput("the id in the path must not be empty");
    }
    if (id.equals(delimiter)) {
      return List.of();
    }
    List<String> parts = new ArrayList<>(4);
    int start = 0;
    while (true) {
      int end = id.indexOf(delimiter, start);
      String part = end < 0 ? id.substring(start) : id.substring(start, end);
      validateName(part);
      parts.add(part);
      if (parts.size() > MAX_PARTS) {
        throw ApiException.invalidInput("an id has at most " + MAX_PARTS + " parts");
      }
      if (end < 0) {
        return List.copyOf(parts);
      }
      start = end + delimiter.length();
    }
  }

  /** A name becomes a path segment of a storage location, so it must be safe as one. */
  public static void validateName(String name) {
    if (name.isEmpty()) {
      throw ApiException.invalidInput("an id part must not be empty");
    }
    if (name.length() > MAX_PART_LENGTH) {
      throw ApiException.invalidInput("an id part is at most " + MAX_PART_LENGTH + " characters");
    }
    if (name.equals(".") || name.equals("..")) {
      throw ApiException.invalidInput("'" + name + "' is not a valid name");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || Character.isISOControl(c)) {
        throw ApiException.invalidInput(
            "an id part must not contain '/', '\\' or control characters");
      }
    }
  }

  /** An id for messages, its parts joined by the default delimiter. */
  public static String display(List<String> id) {
    return id.isEmpty() ? "(root)" : String.join(DEFAULT_DELIMITER, id);
  }
}
