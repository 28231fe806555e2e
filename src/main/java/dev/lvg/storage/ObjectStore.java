package dev.lvg.storage;

import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Set;

/**
 * The object operations manifest finalization needs, for the local file system and for
 * S3-compatible stores. Keys are the store's own: absolute paths, or object keys in a bucket.
 *
 * <p>A final manifest is created under the transaction id of the version row that holds the slot,
 * and carries a mark of it until {@link #settle} says that row committed. A final manifest that
 * still carries a mark was left by a commit that died before its row committed: the next holder of
 * the slot may {@linkplain #removeAbandoned remove it}. A final manifest without a mark is never
 * removed or overwritten.
 */
public interface ObjectStore {
  /** The object's bytes; fails with {@link NoSuchObjectException} when it does not exist. */
  Future<Buffer> read(String key);

  /**
   * The last {@code length} bytes of the object (all of it when it is shorter) and its size; fails
   * with {@link NoSuchObjectException} when it does not exist or is not a plain object.
   */
  Future<Range> readTail(String key, int length);

  /**
   * {@link #readTail} for several objects at once, one answer per key in order; a store may share
   * the work among them (one worker task for all).
   */
  default List<Future<Range>> readTails(List<String> keys, int length) {
    return keys.stream().map(key -> readTail(key, length)).toList();
  }

  /**
   * Up to {@code length} bytes of the object from {@code offset} (fewer at its end) and its size;
   * fails with {@link NoSuchObjectException} when it does not exist or is not a plain object.
   */
  Future<Range> readRange(String key, long offset, int length);

  /** Bytes read from an object, and the object's whole size. */
  record Range(Buffer bytes, long objectSize) {}

  /** Size and entity tag of an existing object; {@link NoSuchObjectException} otherwise. */
  Future<ObjectInfo> stat(String key);

  /** Deletes the object; succeeds when it is already gone. */
  Future<Void> deleteIfExists(String key);

  /** Writes {@code bytes} to {@code key} unless it exists, durably; answers whether it did. */
  Future<Boolean> createIfAbsent(String key, Buffer bytes);

  /** Writes {@code bytes} to {@code key}, replacing what is there at once and durably. */
  Future<Void> replace(String key, Buffer bytes);

  /** The names of the objects directly under {@code directoryKey}; empty when there are none. */
  Future<Set<String>> list(String directoryKey);

  /**
   * Deletes every object under {@code directoryKey} (the key followed by {@code /}) and the
   * directory itself where the store has one; answers how many objects went. Succeeds when nothing
   * is there.
   */
  Future<Long> deleteTree(String directoryKey);

  /**
   * Copies {@code staging} to {@code finalKey} unless {@code finalKey} exists (create-if-absent,
   * durable before it answers), marked with {@code transactionId}, and describes the final object.
   * When {@code staging} equals {@code finalKey} it only checks that the object exists.
   */
  Future<Copy> createFinal(String staging, String finalKey, String transactionId);

  /**
   * {@link #createFinal} for several placements at once, one answer per placement in order; a store
   * may share the work among them (one worker task, one sync for all).
   */
  default List<Future<Copy>> createFinalAll(List<Placement> placements) {
    return placements.stream()
        .map(one -> createFinal(one.staging(), one.finalKey(), one.transactionId()))
        .toList();
  }

  /**
   * Removes {@code finalKey} if it carries a transaction id's mark (its row never committed);
   * answers whether it did. The caller must hold the version's slot.
   */
  Future<Boolean> removeAbandoned(String finalKey);

  /**
   * After the row of {@code transactionId} committed: removes the staging object (unless it is the
   * final one) and the mark of its transaction id on the final object.
   */
  Future<Void> settle(String staging, String finalKey, String transactionId);

  /** {@link #settle} for several committed rows at once; one failing does not stop the others. */
  default Future<Void> settleAll(List<Placement> settlements) {
    return Future.join(
            settlements.stream()
                .map(one -> settle(one.staging(), one.finalKey(), one.transactionId()))
                .toList())
        .mapEmpty();
  }

  /**
   * A staging object, the final key it goes to and the transaction id that places it: what {@link
   * #createFinalAll} and {@link #settleAll} take.
   */
  record Placement(String staging, String finalKey, String transactionId) {}

  /**
   * How a copy went: created, already there with the same bytes, there with other bytes, or no
   * source.
   */
  enum CopyOutcome {
    CREATED,
    SAME,
    OTHER_BYTES,
    SOURCE_MISSING
  }

  /** The outcome of a copy and, when the final object holds the staging bytes, its size and tag. */
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
