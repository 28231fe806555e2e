package dev.lvg.feed;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.ConnectTimeoutException;
import io.vertx.core.http.HttpClosedException;
import java.net.ConnectException;
import java.net.UnknownHostException;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** A failed delivery reads as what happened and where, whatever wraps the failure. */
class WebhookFailuresTest {
  private static final String WHERE = "hooks.example.com:8443";

  @Test
  void eachKindOfFailureIsASentenceNamingTheEndpoint() {
    assertThat(
            WebhookFailures.inWords(
                new ConnectException("Connection refused: /10.0.0.1:8443"), WHERE))
        .isEqualTo("connection refused by hooks.example.com:8443");
    assertThat(
            WebhookFailures.inWords(
                new IllegalStateException(new ConnectException("refused")), WHERE))
        .isEqualTo("connection refused by hooks.example.com:8443");
    assertThat(WebhookFailures.inWords(new ConnectTimeoutException("timed out"), WHERE))
        .isEqualTo("could not connect to hooks.example.com:8443 in time");
    assertThat(WebhookFailures.inWords(new TimeoutException("The timeout period"), WHERE))
        .isEqualTo("no answer from hooks.example.com:8443 in time");
    assertThat(WebhookFailures.inWords(new UnknownHostException("hooks"), WHERE))
        .isEqualTo("unknown host in hooks.example.com:8443");
    assertThat(WebhookFailures.inWords(new SSLHandshakeException("bad certificate"), WHERE))
        .isEqualTo("TLS with hooks.example.com:8443 failed: bad certificate");
    assertThat(WebhookFailures.inWords(new HttpClosedException("closed"), WHERE))
        .isEqualTo("hooks.example.com:8443 closed the connection before answering");
    assertThat(WebhookFailures.inWords(new IllegalStateException(), WHERE))
        .isEqualTo("sending to hooks.example.com:8443 failed: IllegalStateException");
  }
}
