package dev.lvg.feed;

import dev.lvg.http.ApiException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.Locale;

/**
 * Where webhooks may go: {@code http} or {@code https} URLs whose host resolves only to public
 * addresses. Loopback, private, link-local (cloud metadata services live there), carrier-grade NAT,
 * unique-local, multicast and unspecified addresses are refused unless the operator allows them
 * ({@code LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS}): a tenant must not be able to make the gateway call
 * into its own network. The check runs when an endpoint is registered and again before each
 * delivery (a name may resolve elsewhere later); redirects are never followed.
 */
public final class WebhookTargets {
  private final Vertx vertx;
  private final boolean allowPrivate;

  public WebhookTargets(Vertx vertx, boolean allowPrivate) {
    this.vertx = vertx;
    this.allowPrivate = allowPrivate;
  }

  /** The endpoint {@code url}, checked: 400 code 13 when it may not be called. */
  public Future<URI> check(String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      return Future.failedFuture(
          ApiException.invalidInput("'url' is not a URL: " + e.getMessage()));
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")
        || uri.getHost() == null
        || uri.getRawUserInfo() != null
        || uri.getRawFragment() != null) {
      return Future.failedFuture(
          ApiException.invalidInput(
              "'url' must be an http or https URL with a host, no user info and no fragment"));
    }
    return vertx
        .executeBlocking(() -> refusal(uri.getHost()), false)
        .compose(
            refused ->
                refused == null
                    ? Future.succeededFuture(uri)
                    : Future.failedFuture(ApiException.invalidInput(refused)));
  }

  /** Why {@code host} may not be called, or null when it may (blocks: it resolves the name). */
  String refusal(String host) {
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName(host);
    } catch (UnknownHostException e) {
      return "the host of 'url' does not resolve: " + host;
    }
    if (allowPrivate) {
      return null;
    }
    for (InetAddress address : addresses) {
      if (!isPublic(address)) {
        return "the host of 'url' resolves to "
            + address.getHostAddress()
            + ", a loopback, private or link-local address; webhooks go to public addresses"
            + " unless LVG_WEBHOOK_ALLOW_PRIVATE_TARGETS is true";
      }
    }
    return null;
  }

  static boolean isPublic(InetAddress address) {
    if (address.isLoopbackAddress()
        || address.isAnyLocalAddress()
        || address.isLinkLocalAddress()
        || address.isSiteLocalAddress()
        || address.isMulticastAddress()) {
      return false;
    }
    byte[] b = address.getAddress();
    if (address instanceof Inet4Address) {
      int first = b[0] & 0xff;
      int second = b[1] & 0xff;
      return first != 0 // this network
          && !(first == 100 && second >= 64 && second < 128) // carrier-grade NAT
          && !(first == 192 && second == 0 && (b[2] & 0xff) == 0) // IETF protocol assignments
          && first < 240; // reserved and broadcast
    }
    if (address instanceof Inet6Address) {
      int first = b[0] & 0xff;
      boolean uniqueLocal = (first & 0xfe) == 0xfc;
      boolean mappedV4 = isMappedV4(b);
      if (mappedV4) {
        try {
          return isPublic(InetAddress.getByAddress(new byte[] {b[12], b[13], b[14], b[15]}));
        } catch (UnknownHostException e) {
          return false;
        }
      }
      return !uniqueLocal;
    }
    return false;
  }

  private static boolean isMappedV4(byte[] b) {
    for (int i = 0; i < 10; i++) {
      if (b[i] != 0) {
        return false;
      }
    }
    return (b[10] & 0xff) == 0xff && (b[11] & 0xff) == 0xff;
  }
}
