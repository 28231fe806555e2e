package dev.lvg.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.storage.StorageException;
import io.vertx.core.Handler;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import io.vertx.pgclient.PgException;
import io.vertx.sqlclient.ClosedConnectionException;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place a failure becomes a response: the spec's {@code ErrorResponse} fields and the RFC
 * 7807 fields in one JSON object. 5xx are logged once with their stack; nothing internal reaches
 * the client.
 */
public final class ErrorResponder implements Handler<RoutingContext> {
  private static final Logger LOG = LoggerFactory.getLogger(ErrorResponder.class);
  /** SQLSTATE classes that mean the database cannot serve now, not that the request is wrong. */
  private static final Set<String> UNAVAILABLE_SQLSTATE_CLASSES = Set.of("08", "53", "57");
  static final String RETRY_AFTER_SECONDS = "1";

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
    int status = ctx.statusCode();
    if (failure == null && status == 413) {
      send(ctx, ErrorCode.INVALID_INPUT, 413, "request body exceeds " + maxBodyBytes + " bytes");
      return;
    }
    if (failure == null && status == 404) {
      send(ctx, ErrorCode.UNSUPPORTED, ErrorCode.UNSUPPORTED.status, "no such operation: "
          + ctx.request().method() + " " + ctx.request().path());
      return;
    }
    if (failure == null && status == 405) {
      send(ctx, ErrorCode.UNSUPPORTED, ErrorCode.UNSUPPORTED.status, "method "
          + ctx.request().method() + " is not supported on " + ctx.request().path());
      return;
    }
    ApiException error = classify(failure, status);
    if (error.errorCode().status >= 500) {
      LOG.error("{} {} failed: {}", ctx.request().method(), ctx.request().path(), error.getMessage(),
          failure != null && failure != error ? failure : null);
    } else {
      LOG.debug("{} {} -> {} code {}: {}", ctx.request().method(), ctx.request().path(),
          error.errorCode().status, error.errorCode().code, error.getMessage());
    }
    send(ctx, error.errorCode(), error.errorCode().status, error.getMessage());
  }

  private static ApiException classify(Throwable failure, int status) {
    if (failure instanceof ApiException api) {
      return api;
    }
    if (failure instanceof StorageException) {
      return new ApiException(ErrorCode.SERVICE_UNAVAILABLE, "the storage backend failed; retry shortly");
    }
    if (failure instanceof ConnectionPoolTooBusyException) {
      return ApiException.slowDown("too many requests are waiting for the database; retry shortly");
    }
    if (failure instanceof PgException pg) {
      String state = pg.getSqlState();
      if (state != null && UNAVAILABLE_SQLSTATE_CLASSES.contains(state.substring(0, 2))) {
        return ApiException.slowDown("the database cannot serve requests right now");
      }
      if (state != null && state.startsWith("40")) {
        return new ApiException(ErrorCode.CONCURRENT_MODIFICATION,
            "the request collided with a concurrent one and was rolled back; retry");
      }
      return new ApiException(ErrorCode.INTERNAL, "the database rejected the request (SQLSTATE " + state + ")");
    }
    if (failure instanceof java.net.ConnectException || failure instanceof ClosedConnectionException) {
      return ApiException.slowDown("the database is not reachable");
    }
    if (failure == null && status >= 400 && status < 500) {
      return ApiException.invalidInput("the request was rejected (HTTP " + status + ")");
    }
    return new ApiException(ErrorCode.INTERNAL, "internal error");
  }

  static void send(RoutingContext ctx, ErrorCode code, int status, String message) {
    ObjectNode body = Json.object()
        .put("code", code.code)
        .put("error", message)
        .put("type", code.type)
        .put("title", code.title)
        .put("status", status)
        .put("detail", message)
        .put("instance", ctx.request().path());
    if (code == ErrorCode.SERVICE_UNAVAILABLE) {
      ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
    }
    Json.respond(ctx, status, body);
  }
}
