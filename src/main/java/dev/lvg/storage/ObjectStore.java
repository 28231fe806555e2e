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

  /** Size in bytes and the entity tag clients see for an object. */
  record ObjectInfo(long size, String eTag) {}

  /** The object does not exist. */
  final class NoSuchObjectException extends RuntimeException {
    public NoSuchObjectException(String key) {
      super("no object at " + key, null, false, false);
    }
  }
}
