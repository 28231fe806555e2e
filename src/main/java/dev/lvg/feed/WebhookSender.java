package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends one event to one endpoint as Standard Webhooks 1.0 has it: a POST of the CloudEvent with
 * its id, a timestamp and the signatures of the endpoint's secrets, redirects not followed,
 * connections kept alive between events. Where the endpoint's host resolves is judged apart, once a
 * turn, and the connection goes to the address judged.
 */
final class WebhookSender {
  private final WebhookTargets targets;
  private final int timeoutMillis;
  private final HttpClient http;

  WebhookSender(Vertx vertx, WebhookTargets targets, int timeoutMillis) {
    this.targets = targets;
    this.timeoutMillis = timeoutMillis;
    this.http =
        vertx.createHttpClient(
            new HttpClientOptions()
                .setConnectTimeout(timeoutMillis)
                .setIdleTimeout(timeoutMillis)
                .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
                .setKeepAlive(true)
                .setKeepAliveTimeout(30));
  }

  /** What the endpoint answered: its status and Retry-After, or why there was no answer. */
  record Answer(int status, Long retryAfterMillis, String error) {}

  /**
   * Where the endpoint's events go for this turn: its host resolved once, on a worker thread (the
   * lookup blocks), and the address judged; or why it may not be called now.
   */
  Future<WebhookTargets.Target> target(WebhookEndpoint endpoint) {
    return targets.resolve(endpoint.url());
  }

  /**
   * Sends {@code event} to {@code target}, which {@link #target} judged for this turn: the
   * connection goes to the judged address, with the URL's host in the Host header and in TLS's
   * server name.
   */
  Future<Answer> post(WebhookTargets.Target target, List<String> secrets, ObjectNode event) {
    if (target.refusal() != null) {
      return Future.succeededFuture(new Answer(0, null, target.refusal()));
    }
    String body = event.toString();
    String eventId = event.get("id").asText();
    long timestamp = System.currentTimeMillis() / 1000;
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(target.url().toString())
            .setServer(
                SocketAddress.inetSocketAddress(
                    new InetSocketAddress(target.address(), port(target.url()))))
            .setFollowRedirects(false)
            .setTimeout(timeoutMillis)
            .putHeader("content-type", "application/cloudevents+json; charset=utf-8")
            .putHeader("user-agent", "lance-version-gateway")
            .putHeader("webhook-id", eventId)
            .putHeader("webhook-timestamp", Long.toString(timestamp))
            .putHeader(
                "webhook-signature", WebhookSigner.signature(secrets, eventId, timestamp, body));
    return http.request(request)
        .compose(sent -> sent.send(Buffer.buffer(body)))
        .compose(
            (HttpClientResponse response) ->
                response
                    .body()
                    .map(
                        ignored ->
                            new Answer(
                                response.statusCode(),
                                retryAfter(response.getHeader("retry-after")),
                                "HTTP " + response.statusCode())))
        .recover(
            failure ->
                Future.succeededFuture(
                    new Answer(
                        0,
                        null,
                        WebhookFailures.inWords(
                            failure, target.url().getHost() + ":" + port(target.url())))));
  }

  private static int port(URI url) {
    if (url.getPort() >= 0) {
      return url.getPort();
    }
    return url.getScheme().equalsIgnoreCase("https") ? 443 : 80;
  }

  /** Retry-After in seconds (the HTTP-date form is not taken); null when absent or unreadable. */
  static Long retryAfter(String value) {
    if (value == null) {
      return null;
    }
    try {
      return Math.max(0, Long.parseLong(value.trim())) * 1000;
    } catch (NumberFormatException notSeconds) {
      return null;
    }
  }
}
