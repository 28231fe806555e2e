package dev.lvg.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * Keyset pagination: a page token is the opaque, encoded sort key of the last item returned, so a
 * walk stays correct while items are added. {@code limit} is an inclusive upper bound, clamped to
 * the configured maximum.
 */
public final class Paging {
  private static final String PREFIX = "k1:";

  /** The spec's name for a page token, in requests and answers. */
  private static final String TOKEN = "page_token";

  private final int defaultLimit;
  private final int maxLimit;

  public Paging(int defaultLimit, int maxLimit) {
    this.defaultLimit = defaultLimit;
    this.maxLimit = maxLimit;
  }

  public int limit(Long requested) {
    if (requested == null) {
      return defaultLimit;
    }
    if (requested < 1) {
      throw ApiException.invalidInput("'limit' must be at least 1, got " + requested);
    }
    return (int) Math.min(requested, maxLimit);
  }

  public int limit(RoutingContext ctx) {
    Integer requested = Requests.queryInteger(ctx, "limit");
    return limit(requested == null ? null : requested.longValue());
  }

  /** The sort key the request's {@code page_token} query parameter carries, or null for none. */
  public static String after(RoutingContext ctx) {
    return decode(ctx.queryParams().get(TOKEN));
  }

  /** The same, the token taken from the query, else from the body's {@code page_token}. */
  public static String after(RoutingContext ctx, Body body) {
    String inQuery = ctx.queryParams().get(TOKEN);
    return decode(inQuery != null ? inQuery : body.optionalString(TOKEN));
  }

  /**
   * {@code result} with a {@code page_token} after the last of the page shown when {@code fetched}
   * (read with one more than {@code limit}) holds more than a page; {@code key} is an item's sort
   * key.
   */
  public static <T> ObjectNode withToken(
      ObjectNode result, List<T> fetched, int limit, Function<T, String> key) {
    if (fetched.size() > limit) {
      result.put(TOKEN, encode(key.apply(fetched.get(limit - 1))));
    }
    return result;
  }

  /** The page shown of {@code fetched}, read with one more than {@code limit}. */
  public static <T> List<T> shown(List<T> fetched, int limit) {
    return fetched.subList(0, Math.min(limit, fetched.size()));
  }

  public static String encode(String lastKey) {
    return Base64.getUrlEncoder()
        .withoutPadding()
        .encodeToString((PREFIX + lastKey).getBytes(StandardCharsets.UTF_8));
  }

  /** The sort key a token carries, or {@code null} for no token. */
  public static String decode(String token) {
    if (token == null || token.isEmpty()) {
      return null;
    }
    String decoded;
    try {
      decoded = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw ApiException.invalidInput("'page_token' is not a token this server issued");
    }
    if (!decoded.startsWith(PREFIX)) {
      throw ApiException.invalidInput("'page_token' is not a token this server issued");
    }
    return decoded.substring(PREFIX.length());
  }

  /** A table id as a sort key: its names as a JSON array. */
  public static String encodeId(TableId id) {
    try {
      return Json.MAPPER.writeValueAsString(id.names());
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The table id a key from {@link #encodeId} names; 400 for anything else. */
  public static TableId decodeId(String key) {
    try {
      java.util.List<String> id =
          java.util.Arrays.asList(Json.MAPPER.readValue(key, String[].class));
      if (id.isEmpty() || id.contains(null)) {
        throw ApiException.invalidInput("'page_token' is not a token this server issued");
      }
      return TableId.of(id);
    } catch (java.io.IOException e) {
      throw ApiException.invalidInput("'page_token' is not a token this server issued");
    }
  }

  /** A sort key that is a number (what {@link #after} gave), or null for none. */
  public static Long longKey(String key) {
    if (key == null) {
      return null;
    }
    try {
      return Long.parseLong(key);
    } catch (NumberFormatException e) {
      throw ApiException.invalidInput("'page_token' is not a token this server issued");
    }
  }
}
