package dev.lvg.storage;

import dev.lvg.http.DependencyException;

/** The storage backend failed or could not be reached; the request may be retried. */
public final class StorageException extends DependencyException {
  public StorageException(String operation, String key, Throwable cause) {
    super("storage backend", operation + " " + key + " failed: " + cause.getMessage(), cause);
  }
}
