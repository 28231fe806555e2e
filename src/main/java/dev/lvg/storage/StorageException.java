package dev.lvg.storage;

/** The storage backend failed or could not be reached; the request may be retried. */
public final class StorageException extends RuntimeException {
  public StorageException(String operation, String key, Throwable cause) {
    super(operation + " " + key + " failed: " + cause.getMessage(), cause);
  }
}
