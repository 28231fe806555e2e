package dev.lvg.http;

import io.netty.handler.codec.DecoderException;
import io.vertx.core.VertxException;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.core.json.DecodeException;
import io.vertx.pgclient.PgException;
import java.io.IOException;
import java.nio.file.InvalidPathException;
import java.util.Set;
import java.util.concurrent.TimeoutException;

/**
 * The one classifier of failures. The error responder turns its answer into a response, the metrics
 * count it, and the commit path asks it whether a failed write may still have committed.
 */
public final class Failures {
  /** SQLSTATE classes that mean the database cannot serve now, not that the request is wrong. */
  private static final Set<String> UNAVAILABLE_SQLSTATE_CLASSES = Set.of("08", "53", "57", "58");

  /** SQLSTATEs outside those classes with the same meaning: a read-only server (a replica). */
  private static final Set<String> UNAVAILABLE_SQLSTATES = Set.of("25006");

  private Failures() {}

  /** What kind of failure it was, as operators count them. */
  public enum Kind {
    /** The request was wrong or lost a race: a 4xx. */
    CLIENT,
    /** The gateway refused it to protect itself: 503 code 17. */
    SHED,
    /** A dependency could not serve it: 503 code 17. */
    UNAVAILABLE,
    /** A defect: 500 code 18. */
    INTERNAL
  }

  /** A classified failure: its kind and the error the client sees. */
  public record Failure(Kind kind, ApiException error) {}

  public static Failure classify(Throwable failure) {
    if (failure instanceof ApiException api) {
      return new Failure(kindOf(api), api);
    }
    if (failure instanceof DependencyException dependency) {
      InvalidPathException unrepresentable = unrepresentable(dependency);
      if (unrepresentable != null) {
        return new Failure(
            Kind.CLIENT,
            ApiException.invalidInput(
                "a name or path in this request cannot be written to this server's file system,"
                    + " whose file names are encoded as "
                    + System.getProperty("sun.jnu.encoding")
                    + " (run the gateway in a UTF-8 locale)"));
      }
      return unavailable(dependency.publicMessage());
    }
    if (failure instanceof ConnectionPoolTooBusyException) {
      return new Failure(
          Kind.SHED,
          ApiException.shed("too many requests are waiting for the database; retry shortly"));
    }
    if (failure instanceof PgException pg) {
      return classifySqlState(pg.getSqlState());
    }
    if (failure instanceof DecodeException) {
      return internal();
    }
    if (undecodableHttp(failure)) {
      return new Failure(
          Kind.CLIENT, ApiException.invalidInput("the request body is not valid HTTP framing"));
    }
    if (failure instanceof VertxException
        || failure instanceof IOException
        || failure instanceof TimeoutException) {
      return unavailable("the database is not reachable; retry shortly");
    }
    return internal();
  }

  /**
   * True when the HTTP decoder refused what a client sent after a valid request head (a malformed
   * chunk size, say): the client's mistake, and the connection cannot be read any further.
   */
  public static boolean undecodableHttp(Throwable failure) {
    if (failure instanceof DecoderException) {
      return true;
    }
    if (!(failure instanceof IllegalArgumentException)) {
      return false;
    }
    StackTraceElement[] trace = failure.getStackTrace();
    return trace.length > 0 && trace[0].getClassName().startsWith("io.netty.handler.codec.http.");
  }

  /**
   * True when PostgreSQL cancelled the statement for running past its statement timeout: on the
   * reads' pool, whose timeout is short, the request asked too much; elsewhere the database stalls.
   */
  public static boolean statementTimedOut(Throwable failure) {
    return failure instanceof PgException pg
        && "57014".equals(pg.getSqlState())
        && pg.getErrorMessage() != null
        && pg.getErrorMessage().contains("statement timeout");
  }

  /** The answer to a read whose statement ran past the reads' timeout: its own, not an outage. */
  public static ApiException readTooLong() {
    return ApiException.shed(
        "this read needed more database time than a read may take (LVG_DB_READ_TIMEOUT_MS): ask"
            + " for less (a smaller page, fewer filters) or retry later");
  }

  /**
   * True when a write that failed this way may have committed all the same (the connection broke
   * after the statement was sent), so its outcome must be read back before answering.
   */
  public static boolean outcomeUnknown(Throwable failure) {
    return !(failure instanceof ApiException)
        && !(failure instanceof PgException)
        && !(failure instanceof ConnectionPoolTooBusyException)
        && !(failure instanceof java.net.ConnectException);
  }

  /**
   * The file system's refusal of a name the JVM cannot encode (under a non-UTF-8 locale): the
   * request's name, not an outage of storage.
   */
  private static InvalidPathException unrepresentable(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause instanceof InvalidPathException invalid) {
        return invalid;
      }
    }
    return null;
  }

  private static Kind kindOf(ApiException api) {
    if (api.isShed()) {
      return Kind.SHED;
    }
    if (api.errorCode() == ErrorCode.SERVICE_UNAVAILABLE) {
      return Kind.UNAVAILABLE;
    }
    return api.errorCode().status >= 500 ? Kind.INTERNAL : Kind.CLIENT;
  }

  private static Failure classifySqlState(String state) {
    if (state != null
        && (UNAVAILABLE_SQLSTATE_CLASSES.contains(state.substring(0, 2))
            || UNAVAILABLE_SQLSTATES.contains(state))) {
      return unavailable("the database cannot serve requests right now; retry shortly");
    }
    if (state != null && state.startsWith("22")) {
      // A data exception: a value of the request that the database cannot take.
      return new Failure(
          Kind.CLIENT,
          ApiException.invalidInput(
              "the request holds a value the database cannot store (SQLSTATE " + state + ")"));
    }
    if (state != null && state.startsWith("40")) {
      return new Failure(
          Kind.CLIENT,
          ApiException.conflict(
              "the request collided with a concurrent one and was rolled back; retry"));
    }
    return new Failure(
        Kind.INTERNAL,
        new ApiException(
            ErrorCode.INTERNAL, "the database rejected the request (SQLSTATE " + state + ")"));
  }

  private static Failure unavailable(String message) {
    return new Failure(Kind.UNAVAILABLE, ApiException.unavailable(message));
  }

  private static Failure internal() {
    return new Failure(Kind.INTERNAL, new ApiException(ErrorCode.INTERNAL, "internal error"));
  }
}
