package dev.lvg.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a failure becomes a response: the spec's {@code ErrorResponse} fields and the RFC
 * 7807 fields in one JSON object. Defects are logged once with their stack; nothing internal
 * reaches the client.
 */
public final class ErrorResponder implements Handler<RoutingContext> {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorResponder.class);

  private final long maxBodyBytes;

  public ErrorResponder(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
  }

  @Override
  public void handle(RoutingContext ctx) {
    HttpServerResponse response = ctx.response();
    if (response.ended() || response.closed()) {
      return;
    }
    if (response.headWritten()) {
      response.reset();
      return;
    }
    Throwable failure = ctx.failure();
    ApiException error = failure == null ? routerError(ctx) : log(ctx, Failures.classify(failure));
    int status = failure == null && ctx.statusCode() == 413 ? 413 : error.errorCode().status;
    if (error.errorCode() == ErrorCode.SERVICE_UNAVAILABLE) {
      ctx.response().putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    send(ctx, error.errorCode(), status, error.getMessage());
  }

  /** The router's own refusals: no route, wrong method, a body over the limit. */
  private ApiException routerError(RoutingContext ctx) {
    String method = ctx.request().method().name();
    String path = ctx.request().path();
    return switch (ctx.statusCode()) {
      case 413 -> ApiException.invalidInput("request body exceeds " + maxBodyBytes + " bytes");
      case 404 -> new ApiException(ErrorCode.UNSUPPORTED, SpecOperations.refusal(method, path));
      case 405 ->
          new ApiException(
              ErrorCode.UNSUPPORTED, "method " + method + " is not supported on " + path);
      default ->
          ctx.statusCode() >= 400 && ctx.statusCode() < 500
              ? ApiException.invalidInput(
                  "the request was rejected (HTTP " + ctx.statusCode() + ")")
              : log(ctx, Failures.classify(null));
    };
  }

  private static ApiException log(RoutingContext ctx, Failures.Failure classified) {
    ApiException error = classified.error();
    Throwable cause = ctx.failure();
    switch (classified.kind()) {
      case INTERNAL ->
          LOG.error(
              "{} {} failed: {}",
              ctx.request().method(),
              ctx.request().path(),
              error.getMessage(),
              cause != null && cause != error ? cause : null);
      case UNAVAILABLE ->
          LOG.warn(
              "{} {} -> 503: {}",
              ctx.request().method(),
              ctx.request().path(),
              cause == null || cause == error ? error.getMessage() : cause.toString());
      default ->
          LOG.debug(
              "{} {} -> {} code {}: {}",
              ctx.request().method(),
              ctx.request().path(),
              error.errorCode().status,
              error.errorCode().code,
              error.getMessage());
    }
    return error;
  }

  static void send(RoutingContext ctx, ErrorCode code, int status, String message) {
    Json.respond(ctx, status, body(code, status, message, ctx.request().path()));
  }

  private static ObjectNode body(ErrorCode code, int status, String message, String instance) {
    return Json.object()
        .put("code", code.code)
        .put("error", message)
        .put("type", code.type)
        .put("title", code.title)
        .put("status", status)
        .put("detail", message)
        .put("instance", instance);
  }

  /**
   * Answers 400 code 13 to a request whose URI holds a {@code %} not followed by two hex digits,
   * before any router sees it (the router would answer plain text and log the failure); answers
   * whether it did.
   */
  public static boolean rejectMalformedUri(HttpServerRequest request) {
    String uri = request.uri();
    for (int i = uri.indexOf('%'); i >= 0; i = uri.indexOf('%', i + 1)) {
      if (i + 2 >= uri.length()
          || Character.digit(uri.charAt(i + 1), 16) < 0
          || Character.digit(uri.charAt(i + 2), 16) < 0) {
        int query = uri.indexOf('?');
        String path = query < 0 ? uri : uri.substring(0, query);
        String message = "the request URI has a '%' that is not followed by two hex digits";
        byte[] bytes;
        try {
          bytes = Json.MAPPER.writeValueAsBytes(body(ErrorCode.INVALID_INPUT, 400, message, path));
        } catch (JsonProcessingException impossible) {
          throw new IllegalStateException(impossible);
        }
        request
            .response()
            .setStatusCode(400)
            .putHeader("Content-Type", "application/json")
            .end(Buffer.buffer(bytes));
        return true;
      }
    }
    return false;
  }
}
