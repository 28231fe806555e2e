package dev.lvg.storage;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;

/**
 * The few object operations manifest finalization needs, implemented for the local file system and
 * for S3-compatible stores. Keys are the store's own: absolute paths, or object keys in a bucket.
 */
public interface ObjectStore {
  /** The object's bytes; fails with {@link NoSuchObjectException} when it does not exist. */
  Future<Buffer> read(String key);

  /** Writes the object only if no object has that key; true if this call created it. Never overwrites. */
  Future<Boolean> createIfAbsent(String key, Buffer bytes);

  /** Size and entity tag of an existing object. */
  Future<ObjectInfo> stat(String key);

  /** Deletes the object; succeeds when it is already gone. */
  Future<Void> deleteIfExists(String key);

  /**
   * Copies {@code from} to {@code to} unless {@code to} exists (create-if-absent), and describes
   * {@code to} afterwards. {@code from} equal to {@code to} checks only that it exists.
   */
  default Future<Copy> copyIfAbsent(String from, String to) {
    if (from.equals(to)) {
      return stat(to).map(info -> new Copy(CopyOutcome.SAME, info))
          .recover(error -> error instanceof NoSuchObjectException
              ? Future.succeededFuture(new Copy(CopyOutcome.SOURCE_MISSING, null)) : Future.failedFuture(error));
    }
    return read(from)
        .compose(bytes -> createIfAbsent(to, bytes).compose(created -> created
            ? stat(to).map(info -> new Copy(CopyOutcome.CREATED, info))
            : read(to).compose(existing -> existing.equals(bytes)
                ? stat(to).map(info -> new Copy(CopyOutcome.SAME, info))
                : Future.succeededFuture(new Copy(CopyOutcome.OTHER_BYTES, null)))))
        .recover(error -> error instanceof NoSuchObjectException
            ? Future.succeededFuture(new Copy(CopyOutcome.SOURCE_MISSING, null)) : Future.failedFuture(error));
  }

  /** How a copy went: created, already there with the same bytes, there with other bytes, or no source. */
  enum CopyOutcome { CREATED, SAME, OTHER_BYTES, SOURCE_MISSING }

  /** The outcome of a copy and, when the target holds the source's bytes, the target's size and tag. */
  record Copy(CopyOutcome outcome, ObjectInfo info) {}

  /** Size in bytes and the entity tag clients see for an object. */
  record ObjectInfo(long size, String eTag) {}

  /** The object does not exist. */
  final class NoSuchObjectException extends RuntimeException {
    public NoSuchObjectException(String key) {
      super("no object at " + key, null, false, false);
    }
  }
}
