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
import io.vertx.sqlclient.Row;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Sends one event to one endpoint as Standard Webhooks 1.0 has it: a POST of the CloudEvent with
 * its id, a timestamp and the signatures of the endpoint's secrets, redirects not followed,
 * connections kept alive between events. Where the endpoint's host resolves is checked apart, once
 * a turn.
 */
final class WebhookSender {
  private final Vertx vertx;
  private final WebhookTargets targets;
  private final int timeoutMillis;
  private final HttpClient http;

  WebhookSender(Vertx vertx, WebhookTargets targets, int timeoutMillis) {
    this.vertx = vertx;
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
   * Why the endpoint's host may not be called now, or null when it may: where it resolves is
   * checked on a worker thread (the lookup blocks), once for each turn an endpoint gets on its
   * lease.
   */
  Future<String> refusal(Row endpoint) {
    String host = java.net.URI.create(endpoint.getString("url")).getHost();
    return vertx.executeBlocking(() -> targets.refusal(host), false);
  }

  /** Sends {@code event}; the endpoint's target was checked by {@link #refusal} for this turn. */
  Future<Answer> post(Row endpoint, ObjectNode event) {
    String body = event.toString();
    String eventId = event.get("id").asText();
    long timestamp = System.currentTimeMillis() / 1000;
    List<String> secrets = new ArrayList<>(2);
    secrets.add(endpoint.getString("secret"));
    // The secret replaced by a rotation signs too, for a day after the rotation.
    OffsetDateTime previousUntil = endpoint.getOffsetDateTime("previous_until");
    if (endpoint.getString("previous") != null
        && previousUntil != null
        && previousUntil.toInstant().isAfter(Instant.now())) {
      secrets.add(endpoint.getString("previous"));
    }
    RequestOptions request =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            .setAbsoluteURI(endpoint.getString("url"))
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
        .recover(failure -> Future.succeededFuture(new Answer(0, null, failure.toString())));
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
