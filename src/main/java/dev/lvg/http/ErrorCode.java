package dev.lvg.http;

/**
 * The error codes of the Lance Namespace spec with the HTTP status and RFC 7807 type and title that
 * go with each. Clients classify errors by {@link #code}.
 */
public enum ErrorCode {
  UNSUPPORTED(
      0, 406, "/errors/unsupported-operation", "The server does not support this operation"),
  NAMESPACE_NOT_FOUND(1, 404, "/errors/not-found-error", "Namespace not found"),
  NAMESPACE_ALREADY_EXISTS(2, 409, "/errors/conflict", "Namespace already exists"),
  NAMESPACE_NOT_EMPTY(3, 409, "/errors/conflict", "Namespace not empty"),
  TABLE_NOT_FOUND(4, 404, "/errors/not-found-error", "Table not found"),
  TABLE_ALREADY_EXISTS(5, 409, "/errors/conflict", "Table already exists"),
  TABLE_TAG_NOT_FOUND(8, 404, "/errors/not-found-error", "Table tag not found"),
  TABLE_TAG_ALREADY_EXISTS(9, 409, "/errors/conflict", "Table tag already exists"),
  TRANSACTION_NOT_FOUND(10, 404, "/errors/not-found-error", "Transaction not found"),
  TABLE_VERSION_NOT_FOUND(11, 404, "/errors/not-found-error", "Table version not found"),
  INVALID_INPUT(13, 400, "/errors/bad-request", "Malformed request"),
  CONCURRENT_MODIFICATION(14, 409, "/errors/conflict", "Concurrent modification"),
  PERMISSION_DENIED(15, 403, "/errors/forbidden-request", "Not authorized to make this request"),
  UNAUTHENTICATED(
      16,
      401,
      "/errors/unauthorized-request",
      "No valid authentication credentials for the operation"),
  SERVICE_UNAVAILABLE(17, 503, "/errors/service-unavailable", "Slow down"),
  INTERNAL(18, 500, "/errors/server-error", "Internal Server Error"),
  TABLE_BRANCH_NOT_FOUND(22, 404, "/errors/not-found-error", "Table branch not found"),
  TABLE_BRANCH_ALREADY_EXISTS(23, 409, "/errors/conflict", "Table branch already exists"),
  /** A change-feed cursor the feed no longer serves: expired, or of another history. */
  CURSOR_GONE(13, 410, "/errors/gone", "Cursor no longer served");

  public final int code;
  public final int status;
  public final String type;
  public final String title;

  ErrorCode(int code, int status, String type, String title) {
    this.code = code;
    this.status = status;
    this.type = type;
    this.title = title;
  }
}
