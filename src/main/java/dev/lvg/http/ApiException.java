package dev.lvg.http;

/**
 * A failure that maps to one error response: its spec code, its status and a message for people.
 * Code 17 (503 "Slow down") has two causes that operators tell apart: the gateway shed the request
 * to protect itself ({@link #shed}), or a dependency could not serve it ({@link #unavailable}).
 */
public final class ApiException extends RuntimeException {
  private final ErrorCode errorCode;
  private final boolean shed;

  private ApiException(ErrorCode errorCode, String message, boolean shed) {
    super(message, null, false, false);
    this.errorCode = errorCode;
    this.shed = shed;
  }

  public ApiException(ErrorCode errorCode, String message) {
    this(errorCode, message, false);
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
    return new ApiException(ErrorCode.SERVICE_UNAVAILABLE, message, true);
  }

  /** 503 code 17 for a request a dependency (PostgreSQL, storage) could not serve now. */
  public static ApiException unavailable(String message) {
    return new ApiException(ErrorCode.SERVICE_UNAVAILABLE, message, false);
  }

  public static ApiException conflict(String message) {
    return new ApiException(ErrorCode.CONCURRENT_MODIFICATION, message);
  }
}
