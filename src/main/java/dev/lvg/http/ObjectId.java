package dev.lvg.http;

import io.vertx.ext.web.RoutingContext;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.text.Normalizer;
import java.util.ArrayList;
import java.util.List;

/**
 * The identifier of a namespace or table: the {@code {id}} path segment split by the delimiter
 * ({@code $} unless {@code ?delimiter=} says otherwise). An id equal to the delimiter is the root
 * namespace. A non-empty {@code id} array in the body must name the same object.
 *
 * <p>Names are Unicode in NFC: every name a request carries (id parts, new table names, branches,
 * tags) is brought to NFC before it is used, so two spellings of one text (such as {@code é} and
 * {@code e} followed by a combining acute accent) name one object, and the answers, locations and
 * stored names carry the NFC form.
 */
public final class ObjectId {
  public static final String DEFAULT_DELIMITER = "$";

  /** Bytes of UTF-8: a table's directory, the name and ".lance", stays within 255 bytes. */
  private static final int MAX_NAME_BYTES = 200;

  private static final int MAX_PARTS = 64;

  private ObjectId() {}

  /** The table the request's path names; a non-empty {@code id} in the body must agree. */
  public static TableId table(RoutingContext ctx, Body body) {
    return TableId.of(fromRequest(ctx, body));
  }

  /** The namespace the request's path names; a non-empty {@code id} in the body must agree. */
  public static NamespaceId namespace(RoutingContext ctx, Body body) {
    return new NamespaceId(fromRequest(ctx, body));
  }

  /**
   * The table the request's path names, without reading the body (whose {@code id} the operation
   * checks against the path when it reads the body).
   */
  public static TableId table(RoutingContext ctx) {
    return TableId.of(fromPath(ctx));
  }

  /** The namespace the request's path names. */
  public static NamespaceId namespace(RoutingContext ctx) {
    return new NamespaceId(fromPath(ctx));
  }

  /** The table of an entry in a batch, which carries no path: a required, non-empty array. */
  public static TableId table(Body body) {
    return TableId.of(fromBody(body));
  }

  /**
   * The names of the object the request's path names (a non-empty {@code id} in the body must
   * agree), for an id that is neither a namespace's nor a table's, such as a transaction's.
   */
  public static List<String> parts(RoutingContext ctx, Body body) {
    return fromRequest(ctx, body);
  }

  private static List<String> fromRequest(RoutingContext ctx, Body body) {
    List<String> fromPath = fromPath(ctx);
    List<String> fromBody = body.optionalStringList("id");
    if (fromBody != null && !fromBody.isEmpty() && !names(fromBody).equals(fromPath)) {
      throw ApiException.invalidInput(
          "body 'id' " + fromBody + " does not match the id in the path " + fromPath);
    }
    return fromPath;
  }

  private static List<String> fromBody(Body body) {
    List<String> id = body.optionalStringList("id");
    if (id == null || id.isEmpty()) {
      throw ApiException.invalidInput("'id' is required and must name a table");
    }
    return names(id);
  }

  /** Each of {@code parts} checked and in NFC. */
  public static List<String> names(List<String> parts) {
    List<String> names = new ArrayList<>(parts.size());
    for (String part : parts) {
      names.add(name(part));
    }
    return List.copyOf(names);
  }

  /** Where a request keeps its path's id once read: the access check and the operation share it. */
  private static final String PATH_ID = "lvg.path-id";

  /** The id in the request's path, split by its delimiter. */
  private static List<String> fromPath(RoutingContext ctx) {
    List<String> read = ctx.get(PATH_ID);
    if (read == null) {
      read = parse(inPath(ctx), delimiter(ctx));
      ctx.put(PATH_ID, read);
    }
    return read;
  }

  /**
   * The {@code {id}} path segment decoded, a {@code +} in it standing for a space: the spec's
   * generated clients (Lance and LanceDB among them) encode ids as form data, a space as {@code +}
   * and a plus sign as {@code %2B}.
   */
  static String inPath(RoutingContext ctx) {
    String decoded = ctx.pathParam("id");
    if (decoded == null || decoded.indexOf('+') < 0) {
      return decoded;
    }
    // Every route is /v1/<kind>/{id}/...: the raw segment tells a '+' from a "%2B".
    String[] segments = ctx.request().path().split("/", 5);
    if (segments.length < 4) {
      return decoded;
    }
    try {
      return URLDecoder.decode(segments[3], StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalidInput("the id in the path is not validly percent-encoded");
    }
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
      parts.add(name(end < 0 ? id.substring(start) : id.substring(start, end)));
      if (parts.size() > MAX_PARTS) {
        throw ApiException.invalidInput("an id has at most " + MAX_PARTS + " parts");
      }
      if (end < 0) {
        return List.copyOf(parts);
      }
      start = end + delimiter.length();
    }
  }

  /**
   * {@code name} in NFC, once it is known to be safe as a path segment of a storage location: not
   * empty, not {@code .} or {@code ..}, no {@code /}, {@code \\} or control characters, valid
   * Unicode, and at most {@value #MAX_NAME_BYTES} bytes of UTF-8.
   */
  public static String name(String name) {
    if (name.isEmpty()) {
      throw ApiException.invalidInput("an id part must not be empty");
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '/' || c == '\\' || Character.isISOControl(c)) {
        throw ApiException.invalidInput(
            "an id part must not contain '/', '\\' or control characters");
      }
      if (Character.isSurrogate(c)) {
        boolean paired =
            Character.isHighSurrogate(c)
                && i + 1 < name.length()
                && Character.isLowSurrogate(name.charAt(i + 1));
        if (!paired) {
          throw ApiException.invalidInput("an id part must be valid Unicode (a lone surrogate)");
        }
        i++;
      }
    }
    String normal = Normalizer.normalize(name, Normalizer.Form.NFC);
    if (normal.equals(".") || normal.equals("..")) {
      throw ApiException.invalidInput("'" + name + "' is not a valid name");
    }
    if (normal.length() * 3 > MAX_NAME_BYTES
        && normal.getBytes(StandardCharsets.UTF_8).length > MAX_NAME_BYTES) {
      throw ApiException.invalidInput(
          "an id part is at most " + MAX_NAME_BYTES + " bytes of UTF-8");
    }
    return normal;
  }

  /** An id for messages, its parts joined by the default delimiter. */
  public static String display(List<String> id) {
    return id.isEmpty() ? "(root)" : String.join(DEFAULT_DELIMITER, id);
  }
}
