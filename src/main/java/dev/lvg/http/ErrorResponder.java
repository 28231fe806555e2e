package dev.lvg.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
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

  private static final String READ = "lvg.read";

  /**
   * Marks a request of the reads' class, whose statements run on the reads' pool under their short
   * timeout: one that runs past it is this request's answer (503 code 17, asking for less), not an
   * outage of the database.
   */
  public static void read(RoutingContext ctx) {
    ctx.put(READ, Boolean.TRUE);
    ctx.next();
  }

  private final long maxBodyBytes;
  private final OutageLog outages;

  public ErrorResponder(long maxBodyBytes, OutageLog outages) {
    this.maxBodyBytes = maxBodyBytes;
    this.outages = outages;
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
    if (Failures.undecodableHttp(failure)) {
      if (clientMistakeLogged()) {
        LOG.debug(
            "{} {}: undecodable body: {}",
            ctx.request().method(),
            ctx.request().path(),
            failure.toString());
      }
      answer(ctx.request(), Failures.classify(failure).error(), 400, true);
      return;
    }
    ApiException error =
        failure == null
            ? routerError(ctx)
            : Boolean.TRUE.equals(ctx.get(READ)) && Failures.statementTimedOut(failure)
                ? Failures.readTooLong()
                : log(ctx, Failures.classify(failure));
    int status = failure == null && ctx.statusCode() == 413 ? 413 : error.errorCode().status;
    if (error.errorCode() == ErrorCode.SERVICE_UNAVAILABLE) {
      ctx.response().putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    send(ctx, error.errorCode(), status, error.getMessage());
  }

  /**
   * Whether a line about a client's mistake is written: only at DEBUG, and at most {@link
   * LogBudget#CLIENT_MISTAKES} lines a second, so no client can flood the log.
   */
  static boolean clientMistakeLogged() {
    return LOG.isDebugEnabled() && LogBudget.CLIENT_MISTAKES.allows(System.currentTimeMillis());
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

  private ApiException log(RoutingContext ctx, Failures.Failure classified) {
    ApiException error = classified.error();
    Throwable cause = ctx.failure();
    switch (classified.kind()) {
      case INTERNAL ->
          LOG.atError()
              .addKeyValue("request_id", RequestIds.of(ctx.request()))
              .setCause(cause != null && cause != error ? cause : null)
              .log(
                  "{} {} failed: {}",
                  ctx.request().method(),
                  ctx.request().path(),
                  error.getMessage());
      case UNAVAILABLE ->
          outages.failed(
              cause == null || cause == error ? error.getMessage() : cause.toString(),
              System.currentTimeMillis());
      default -> {
        if (clientMistakeLogged()) {
          LOG.atDebug()
              .addKeyValue("request_id", RequestIds.of(ctx.request()))
              .log(
                  "{} {} -> {} code {}: {}",
                  ctx.request().method(),
                  ctx.request().path(),
                  error.errorCode().status,
                  error.errorCode().code,
                  error.getMessage());
        }
      }
    }
    return error;
  }

  static void send(RoutingContext ctx, ErrorCode code, int status, String message) {
    ctx.put(AccessLog.ERROR_CODE, code.code);
    Json.respond(ctx, status, body(code, status, message, ctx.request().path()));
  }

  /** The error body, serialized. */
  static byte[] bodyBytes(ErrorCode code, int status, String message, String instance) {
    try {
      return Json.MAPPER.writeValueAsBytes(body(code, status, message, instance));
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
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
        answer(
            request,
            ApiException.invalidInput(
                "the request URI has a '%' that is not followed by two hex digits"),
            400,
            false);
        return true;
      }
    }
    return false;
  }

  /**
   * Answers a request the HTTP decoder could not read (an initial line or headers over the limit,
   * bytes that are not HTTP) with 414, 431 or 400 and the JSON error body, then closes the
   * connection: nothing more can be read from it.
   */
  public static void rejectUndecodable(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    int status =
        cause instanceof TooLongHttpLineException
            ? 414
            : cause instanceof TooLongHttpHeaderException ? 431 : 400;
    if (clientMistakeLogged()) {
      LOG.debug("undecodable request -> {}: {}", status, cause == null ? "" : cause.toString());
    }
    answer(
        request,
        ApiException.invalidInput(
            switch (status) {
              case 414 -> "the request line is too long";
              case 431 -> "the request headers are too large";
              default -> "the request is not valid HTTP";
            }),
        status,
        true);
  }

  /**
   * Answers {@code request} with {@code error} without a router: {@code status} (usually the code's
   * own), the JSON error body, {@code Retry-After} on a 503, and with {@code close} the connection
   * closed once the answer is out.
   */
  public static void answer(
      HttpServerRequest request, ApiException error, int status, boolean close) {
    String uri = request.uri();
    int query = uri.indexOf('?');
    String path = query < 0 ? uri : uri.substring(0, query);
    byte[] bytes;
    try {
      bytes =
          Json.MAPPER.writeValueAsBytes(body(error.errorCode(), status, error.getMessage(), path));
    } catch (JsonProcessingException impossible) {
      throw new IllegalStateException(impossible);
    }
    HttpServerResponse response = request.response();
    if (response.ended() || response.closed()) {
      return;
    }
    response.setStatusCode(status).putHeader("Content-Type", "application/json");
    if (error.errorCode() == ErrorCode.SERVICE_UNAVAILABLE) {
      response.putHeader("Retry-After", Integer.toString(error.retryAfterSeconds()));
    }
    if (close) {
      response.putHeader("Connection", "close");
      response.end(Buffer.buffer(bytes)).onComplete(sent -> request.connection().close());
    } else {
      response.end(Buffer.buffer(bytes));
    }
  }
}
