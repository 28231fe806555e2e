package dev.lvg.feed;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;

/**
 * A failed delivery in words, as an endpoint's {@code last_error} and a dead letter show it: what
 * happened and where, not the network library's class names.
 */
final class WebhookFailures {
  private WebhookFailures() {}

  /** {@code failure}, met sending to {@code where} (host and port), in a sentence. */
  static String inWords(Throwable failure, String where) {
    Throwable cause = failure;
    while (cause.getCause() != null && cause.getCause() != cause) {
      if (known(cause)) {
        break;
      }
      cause = cause.getCause();
    }
    if (cause instanceof ConnectTimeoutException) {
      return "could not connect to " + where + " in time";
    }
    if (cause instanceof ConnectException) {
      return "connection refused by " + where;
    }
    if (cause instanceof NoRouteToHostException) {
      return "no route to " + where;
    }
    if (cause instanceof UnknownHostException) {
      return "unknown host in " + where;
    }
    if (cause instanceof SSLException) {
      return "TLS with " + where + " failed: " + cause.getMessage();
    }
    if (cause instanceof TimeoutException) {
      // Vert.x's request timeout is one (NoStackTraceTimeoutException).
      return "no answer from " + where + " in time";
    }
    if (cause instanceof HttpClosedException) {
      return where + " closed the connection before answering";
    }
    String message = cause.getMessage();
    return "sending to "
        + where
        + " failed: "
        + (message == null || message.isBlank() ? cause.getClass().getSimpleName() : message);
  }

  private static boolean known(Throwable failure) {
    return failure instanceof ConnectException
        || failure instanceof NoRouteToHostException
        || failure instanceof UnknownHostException
        || failure instanceof SSLException
        || failure instanceof TimeoutException
        || failure instanceof HttpClosedException;
  }
}
