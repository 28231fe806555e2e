package dev.lvg;

import dev.lvg.admin.AdminRoutes;
import dev.lvg.config.Deadlines;
import dev.lvg.config.GatewayConfig;
import dev.lvg.config.TlsSettings;
import dev.lvg.http.ApiException;
import dev.lvg.http.ConnectionGuard;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.ErrorResponder;
import dev.lvg.http.RequestIds;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.ext.web.Router;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The listeners of an API verticle: the API port and, when the admin API has a listener of its own,
 * that one, both serving one router behind the connection guard, request ids and the drain.
 */
final class ApiListeners {
  private static final ApiException SHUTTING_DOWN =
      ApiException.unavailable("the gateway is shutting down; retry shortly");
  private static final ApiException ADMIN_ELSEWHERE =
      new ApiException(
          ErrorCode.UNSUPPORTED,
          "the admin API is served on its own listener (LVG_ADMIN_HOST:LVG_ADMIN_PORT), not on"
              + " this port");

  private ApiListeners() {}

  /** The API listener's options. */
  static HttpServerOptions options(GatewayConfig config) {
    return options(config, false);
  }

  /**
   * The server options of a listener: compression, limits, and TLS when configured; mutual TLS on
   * the API listener only (on the admin listener the operator key or an admin token authorizes).
   */
  static HttpServerOptions options(GatewayConfig config, boolean admin) {
    Deadlines deadlines = config.deadlines();
    HttpServerOptions options =
        new HttpServerOptions()
            .setCompressionSupported(true)
            .setMaxInitialLineLength(16 * 1024)
            // HTTP/1.1 only: with cleartext HTTP/2 on, a connection exists only once its first
            // bytes are in, so a peer that connects and says nothing would escape the head timeout.
            .setHttp2ClearTextEnabled(false);
    TlsSettings tls = config.tlsSettings();
    if (tls.on()) {
      // HTTP/2 through ALPN, or HTTP/1.1; a handshake not done within the head timeout is cut.
      options
          .setSsl(true)
          .setUseAlpn(true)
          .setKeyCertOptions(
              new PemKeyCertOptions()
                  .setCertPath(tls.cert().toString())
                  .setKeyPath(tls.key().toString()))
          .setSslHandshakeTimeout(deadlines.headTimeoutMillis())
          .setSslHandshakeTimeoutUnit(TimeUnit.MILLISECONDS)
          .setIdleTimeout(deadlines.idleTimeoutMillis())
          .setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    }
    if (tls.mutual() && !admin) {
      // Mutual TLS: a client without a certificate the client CA signed (and still valid) does
      // not get past the handshake.
      options
          .setClientAuth(ClientAuth.REQUIRED)
          .setTrustOptions(new PemTrustOptions().addCertPath(tls.clientCa().toString()));
    }
    return options;
  }

  /**
   * Serves {@code router} on {@code host}:{@code port} (negative: a random port the verticles
   * share); with {@code admin} false the admin API is refused there with 404 code 0.
   */
  static Future<HttpServer> listen(
      Vertx vertx,
      HttpServerOptions options,
      ConnectionGuard guard,
      Router router,
      boolean admin,
      AtomicBoolean draining,
      String operatorKey,
      int port,
      String host) {
    return vertx
        .createHttpServer(options)
        .connectionHandler(guard::connected)
        .invalidRequestHandler(ErrorResponder::rejectUndecodable)
        .requestHandler(
            request -> {
              guard.requested(request);
              RequestIds.assign(request, operatorKey);
              if (draining.get()) {
                ErrorResponder.answer(request, SHUTTING_DOWN, 503, true);
              } else if (!admin && request.path().startsWith(AdminRoutes.PREFIX)) {
                ErrorResponder.answer(request, ADMIN_ELSEWHERE, 404, false);
              } else if (!ErrorResponder.rejectMalformedUri(request)) {
                router.handle(request);
              }
            })
        .listen(port, host);
  }
}
