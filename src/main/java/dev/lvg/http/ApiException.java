package dev.lvg.http;

/** A failure that maps to one error response: its spec code, its status and a message for people. */
public final class ApiException extends RuntimeException {
  private final ErrorCode errorCode;

  public ApiException(ErrorCode errorCode, String message) {
    super(message, null, false, false);
    this.errorCode = errorCode;
  }

  public ErrorCode errorCode() {
    return errorCode;
  }

  public static ApiException invalidInput(String message) {
    return new ApiException(ErrorCode.INVALID_INPUT, message);
  }

  public static ApiException unauthenticated(String message) {
    return new ApiException(ErrorCode.UNAUTHENTICATED, message);
  }

  public static ApiException slowDown(String message) {
    return new ApiException(ErrorCode.SERVICE_UNAVAILABLE, message);
  }
}
