package dev.lvg.http;

import io.vertx.core.http.HttpServerRequest;
import java.util.HexFormat;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The id of each API request, so that a client's failed call can be found in the logs: the client's
 * own {@code x-request-id} when it is 1 to 128 characters of letters, digits and {@code . _ ~ : + /
 * = -}, otherwise a new random one. It is set on the response before anything else happens, so
 * every answer carries it: errors, sheds and drains included.
 */
public final class RequestIds {
  public static final String HEADER = "x-request-id";
  static final int MAX_LENGTH = 128;
  private static final HexFormat HEX = HexFormat.of();

  private RequestIds() {}

  /**
   * Gives {@code request} its id and puts it on the response; answers it. A given id that holds the
   * request's credential or {@code operatorKey} is replaced: the id is written to the logs.
   */
  public static String assign(HttpServerRequest request, String operatorKey) {
    String given = request.getHeader(HEADER);
    String id =
        valid(given) && !Secrets.of(request, operatorKey).foundIn(given) ? given : generate();
    request.response().putHeader(HEADER, id);
    return id;
  }

  /** Gives {@code request} a new random id, for one found to hold a credential after all. */
  public static void renew(HttpServerRequest request) {
    request.response().putHeader(HEADER, generate());
  }

  /** The id {@link #assign} gave the request, or "-" for a request that never got one. */
  public static String of(HttpServerRequest request) {
    String id = request.response().headers().get(HEADER);
    return id == null ? "-" : id;
  }

  static boolean valid(String id) {
    if (id == null || id.isEmpty() || id.length() > MAX_LENGTH) {
      return false;
    }
    for (int i = 0; i < id.length(); i++) {
      char c = id.charAt(i);
      boolean allowed =
          (c >= 'a' && c <= 'z')
              || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9')
              || ".-_~:+/=".indexOf(c) >= 0;
      if (!allowed) {
        return false;
      }
    }
    return true;
  }

  /** 128 random bits as 32 hex digits; not a secret, so the per-thread generator will do. */
  static String generate() {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    return HEX.toHexDigits(random.nextLong()) + HEX.toHexDigits(random.nextLong());
  }
}
