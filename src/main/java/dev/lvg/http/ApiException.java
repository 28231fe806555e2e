package dev.lvg.http;

/**
 * A failure that maps to one error response: its spec code, its status and a message for people.
 * Code 17 (503 "Slow down") has two causes that operators tell apart: the gateway shed the request
 * to protect itself ({@link #shed}), or a dependency could not serve it ({@link #unavailable}).
 */
public final class ApiException extends RuntimeException {
  /** Seconds a refused client should wait before it retries (the Retry-After of a 503). */
  public static final int DEFAULT_RETRY_AFTER_SECONDS = 1;

  private final ErrorCode errorCode;
  private final boolean shed;
  private final int retryAfterSeconds;

  private ApiException(ErrorCode errorCode, String message, boolean shed, int retryAfterSeconds) {
    super(message, null, false, false);
    this.errorCode = errorCode;
    this.shed = shed;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  public ApiException(ErrorCode errorCode, String message) {
    this(errorCode, message, false, DEFAULT_RETRY_AFTER_SECONDS);
  }

  /** For a 503: the seconds the client should wait before it retries. */
  public int retryAfterSeconds() {
    return retryAfterSeconds;
  }

  public ErrorCode errorCode() {
    return errorCode;
  }

  /** True when the gateway refused the request to protect itself, before doing its work. */
  public boolean isShed() {
    return shed;
  }

  public static ApiException invalidInput(String message) {
    return new ApiException(ErrorCode.INVALID_INPUT, message);
  }

  public static ApiException unauthenticated(String message) {
    return new ApiException(ErrorCode.UNAUTHENTICATED, message);
  }

  /** 503 code 17 for a request refused by a limit of the gateway's own. */
  public static ApiException shed(String message) {
    return shed(message, DEFAULT_RETRY_AFTER_SECONDS);
  }

  /** 503 code 17 for a request refused by a limit, to be retried after {@code seconds}. */
  public static ApiException shed(String message, int retryAfterSeconds) {
    return new ApiException(ErrorCode.SERVICE_UNAVAILABLE, message, true, retryAfterSeconds);
  }

  /** 503 code 17 for a request a dependency (PostgreSQL, storage) could not serve now. */
  public static ApiException unavailable(String message) {
    return new ApiException(
        ErrorCode.SERVICE_UNAVAILABLE, message, false, DEFAULT_RETRY_AFTER_SECONDS);
  }

  /** 404 code 4, as for a table that does not exist (or that the caller may not see). */
  public static ApiException tableNotFound(TableId table) {
    return new ApiException(ErrorCode.TABLE_NOT_FOUND, "table " + table + " not found");
  }

  /** 404 code 1, as for a namespace that does not exist (or that the caller may not see). */
  public static ApiException namespaceNotFound(NamespaceId namespace) {
    return new ApiException(ErrorCode.NAMESPACE_NOT_FOUND, "namespace " + namespace + " not found");
  }

  public static ApiException conflict(String message) {
    return new ApiException(ErrorCode.CONCURRENT_MODIFICATION, message);
  }
}
