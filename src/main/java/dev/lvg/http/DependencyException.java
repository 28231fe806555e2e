package dev.lvg.http;

/**
 * A dependency of the gateway (the storage backend, an identity provider) failed or could not be
 * reached; the request may be retried. The client learns which dependency failed, never the
 * details, which stay in the message for the log.
 */
public class DependencyException extends RuntimeException {
  private final String dependency;

  public DependencyException(String dependency, String detail, Throwable cause) {
    super(detail, cause);
    this.dependency = dependency;
  }

  /** What the client is told. */
  public String publicMessage() {
    return "the " + dependency + " failed; retry shortly";
  }
}
