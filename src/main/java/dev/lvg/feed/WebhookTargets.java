package dev.lvg.feed;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where webhooks may go: {@code http} or {@code https} URLs whose host resolves only to public
 * addresses ({@link PublicAddresses}), unless the operator allows private ones ({@code
 * LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS}): a tenant must not be able to make the gateway call into its
 * own network. A host is resolved once for a delivery and the connection goes to the address that
 * was judged, so neither a second resolution by the HTTP client nor a DNS answer that changes in
 * between (rebinding) can take it elsewhere. A host written as a number in any form but four
 * decimal parts ({@code 0177.0.0.1}, {@code 0x7f.1}, {@code 2130706433}) is refused: readers
 * disagree on what it means. Redirects are never followed.
 */
public final class WebhookTargets {
  /** Resolves a host name; blocking. A test gives its own. */
  public interface Resolver {
    InetAddress[] resolve(String host) throws UnknownHostException;
  }

  /** Where a delivery goes: its URL and the one address it connects to, or why it may not. */
  record Target(URI url, InetAddress address, String refusal) {}

  private static final Pattern DOTTED_DECIMAL =
      Pattern.compile(
          "((25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)\\.){3}(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)");
  private static final Pattern NUMERIC_LABEL = Pattern.compile("\\d+|0[xX][0-9a-fA-F]*");

  private final Vertx vertx;
  private final boolean allowPrivate;
  private final Resolver resolver;

  public WebhookTargets(Vertx vertx, boolean allowPrivate) {
    this(vertx, allowPrivate, InetAddress::getAllByName);
  }

  public WebhookTargets(Vertx vertx, boolean allowPrivate, Resolver resolver) {
    this.vertx = vertx;
    this.allowPrivate = allowPrivate;
    this.resolver = resolver;
  }

  /** The endpoint {@code url}, checked: 400 code 13 when it may not be called. */
  public Future<URI> check(String url) {
    URI uri;
    try {
      uri = parse(url);
    } catch (ApiException refused) {
      return Future.failedFuture(refused);
    }
    return vertx
        .executeBlocking(() -> judge(uri), false)
        .compose(
            target ->
                target.refusal() == null
                    ? Future.succeededFuture(uri)
                    : Future.failedFuture(ApiException.invalidInput(target.refusal())));
  }

  /**
   * Where a delivery to {@code url} goes now: its host resolved once (on a worker thread) and the
   * address judged, which is the address to connect to.
   */
  Future<Target> resolve(String url) {
    URI uri;
    try {
      uri = parse(url);
    } catch (ApiException refused) {
      return Future.succeededFuture(new Target(null, null, refused.getMessage()));
    }
    return vertx.executeBlocking(() -> judge(uri), false);
  }

  /** {@code url} as a webhook URL, or 400 code 13 for one that can never be called. */
  static URI parse(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw ApiException.invalidInput("'url' is not a URL: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")
        || uri.getHost() == null
        || uri.getRawUserInfo() != null
        || uri.getRawFragment() != null) {
      throw ApiException.invalidInput(
          "'url' must be an http or https URL with a host, no user info and no fragment");
    }
    String ambiguous = ambiguousNumber(uri.getHost());
    if (ambiguous != null) {
      throw ApiException.invalidInput(ambiguous);
    }
    return uri;
  }

  /**
   * Why {@code host} is a number readers disagree on, or null: a host whose last label is a number
   * (decimal, octal or hex) is an IPv4 address to browsers and curl, which must then be four
   * decimal parts without leading zeros.
   */
  static String ambiguousNumber(String host) {
    if (host.startsWith("[")) {
      return null;
    }
    String name = host.endsWith(".") ? host.substring(0, host.length() - 1) : host;
    String last = name.substring(name.lastIndexOf('.') + 1);
    if (!NUMERIC_LABEL.matcher(last).matches() || DOTTED_DECIMAL.matcher(host).matches()) {
      return null;
    }
    return "the host of 'url' ("
        + host
        + ") is a number not written as four decimal parts without leading zeros, which clients"
        + " read differently; write the address as a.b.c.d";
  }

  /** Resolves {@code uri}'s host and judges every address (blocks). */
  Target judge(URI uri) {
    String host = uri.getHost();
    InetAddress[] addresses;
    try {
      addresses = resolver.resolve(host);
    } catch (UnknownHostException e) {
      return new Target(uri, null, "the host of 'url' does not resolve: " + host);
    }
    if (addresses.length == 0) {
      return new Target(uri, null, "the host of 'url' does not resolve: " + host);
    }
    if (!allowPrivate) {
      for (InetAddress address : addresses) {
        if (!PublicAddresses.isPublic(address)) {
          return new Target(
              uri,
              null,
              "the host of 'url' resolves to "
                  + address.getHostAddress()
                  + ", a loopback, private, link-local or otherwise non-public address (or one"
                  + " that embeds such an IPv4 address); webhooks go to public addresses unless"
                  + " LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS is true");
        }
      }
    }
    return new Target(uri, addresses[0], null);
  }
}
