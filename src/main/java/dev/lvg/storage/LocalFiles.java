package dev.lvg.storage;

import dev.lvg.storage.ObjectStore.Copy;
import dev.lvg.storage.ObjectStore.CopyOutcome;
import dev.lvg.storage.ObjectStore.ObjectInfo;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * The file-system steps of {@link LocalFileStore}, each blocking, for worker threads: files written
 * aside and synced, copies through a transaction id's mark, comparisons, and the entity tag of a
 * file.
 */
final class LocalFiles {
  static final String MARK_SUFFIX = ".lvg";

  private LocalFiles() {}

  /** Writes and syncs {@code bytes} to a fresh file next to {@code target}; answers its path. */
  static Path writeAside(Path target, Buffer bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path aside = target.resolveSibling(target.getFileName() + ".lvg-" + UUID.randomUUID());
    try (FileChannel channel =
        FileChannel.open(aside, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(bytes.getBytes()));
      channel.force(true);
    }
    return aside;
  }

  /**
   * Where the staging manifest cannot be linked (another file system, or none with links): a synced
   * copy named after the transaction id, linked to the final name.
   */
  static Copy copyThroughMark(Path staging, Path target, String transactionId) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(staging);
    } catch (NoSuchFileException e) {
      return sourceMissing();
    }
    Path directory = target.getParent();
    Files.createDirectories(directory);
    Path mark = mark(target, transactionId);
    Files.write(
        mark,
        bytes,
        StandardOpenOption.CREATE,
        StandardOpenOption.TRUNCATE_EXISTING,
        StandardOpenOption.WRITE,
        StandardOpenOption.DSYNC);
    try {
      Files.createLink(target, mark);
    } catch (FileAlreadyExistsException exists) {
      Files.deleteIfExists(mark);
      // The same bytes may have been written by a commit that died before they were synced.
      Copy found = compare(staging, target);
      if (found.outcome() == CopyOutcome.SAME) {
        syncFile(target);
      }
      return found;
    }
    syncDirectory(directory);
    return new Copy(CopyOutcome.CREATED, describe(target));
  }

  static Copy compare(Path staging, Path target) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(staging);
    } catch (NoSuchFileException e) {
      return sourceMissing();
    }
    return Arrays.equals(Files.readAllBytes(target), bytes)
        ? new Copy(CopyOutcome.SAME, describe(target))
        : new Copy(CopyOutcome.OTHER_BYTES, null);
  }

  static Copy sourceMissing() {
    return new Copy(CopyOutcome.SOURCE_MISSING, null);
  }

  static Path mark(Path target, String transactionId) {
    return target.resolveSibling("." + target.getFileName() + "." + transactionId + MARK_SUFFIX);
  }

  /**
   * Removes {@code target} if it is still the same file as a staging manifest next to it (named
   * after it, as Lance names staging manifests) or as a transaction id's mark, which only a commit
   * that died leaves; every mark next to it goes too. Answers whether it removed the file.
   */
  static boolean removeAbandoned(Path target) throws IOException {
    String name = target.getFileName().toString();
    boolean abandoned = false;
    try (DirectoryStream<Path> siblings =
        Files.newDirectoryStream(
            target.getParent(),
            entry -> {
              String sibling = entry.getFileName().toString();
              return !sibling.equals(name)
                  && (sibling.startsWith(name) || sibling.startsWith("." + name + "."));
            })) {
      for (Path sibling : siblings) {
        if (Files.exists(target) && Files.isSameFile(sibling, target)) {
          abandoned = true;
        }
        if (sibling.getFileName().toString().endsWith(MARK_SUFFIX)) {
          Files.deleteIfExists(sibling);
        }
      }
    }
    if (abandoned) {
      Files.delete(target);
      syncDirectory(target.getParent());
    }
    return abandoned;
  }

  /** Makes a file's bytes and its name durable. */
  static void syncFile(Path file) throws IOException {
    try (FileChannel data = FileChannel.open(file, StandardOpenOption.READ)) {
      data.force(false);
    }
    syncDirectory(file.getParent());
  }

  /** Makes a new or removed name in {@code directory} durable. */
  static void syncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  /** The entity tag has the form object_store gives local files, which Lance writers see too. */
  static ObjectInfo describe(Path path) throws IOException {
    Map<String, Object> attributes = Files.readAttributes(path, "unix:ino,size,lastModifiedTime");
    long size = ((Number) attributes.get("size")).longValue();
    FileTime modified = (FileTime) attributes.get("lastModifiedTime");
    String eTag =
        Long.toHexString(((Number) attributes.get("ino")).longValue())
            + "-"
            + Long.toHexString(modified.to(TimeUnit.MICROSECONDS))
            + "-"
            + Long.toHexString(size);
    return new ObjectInfo(size, eTag);
  }

  /**
   * {@code length} bytes from {@code offset}, or the last ones for a negative offset. Only a
   * regular file is opened: a name that leads to a pipe or a device never blocks a worker.
   */
  static ObjectStore.Range readPart(String key, long offset, int length) throws IOException {
    Path path = Path.of(key);
    if (!Files.isRegularFile(path)) {
      throw new ObjectStore.NoSuchObjectException(key);
    }
    try (FileChannel file = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = file.size();
      long start = offset < 0 ? Math.max(0, size - length) : Math.min(offset, size);
      ByteBuffer bytes = ByteBuffer.allocate((int) Math.min(length, size - start));
      while (bytes.hasRemaining() && file.read(bytes, start + bytes.position()) >= 0) {
        // reads until the range is full or the file ends
      }
      bytes.flip();
      return new ObjectStore.Range(
          Buffer.buffer(Arrays.copyOf(bytes.array(), bytes.limit())), size);
    } catch (NoSuchFileException e) {
      throw new ObjectStore.NoSuchObjectException(key);
    }
  }

  /** The last {@code length} bytes of each file, or what went wrong reading it, in order. */
  static List<Object> readTails(List<String> keys, int length) {
    List<Object> tails = new ArrayList<>(keys.size());
    for (String key : keys) {
      try {
        tails.add(readPart(key, -1, length));
      } catch (ObjectStore.NoSuchObjectException missing) {
        tails.add(missing);
      } catch (IOException | RuntimeException failed) {
        tails.add(new StorageException("read", key, failed));
      }
    }
    return tails;
  }

  /** One answer per element of what {@code read} answers: a range, or the failure in its place. */
  static List<Future<ObjectStore.Range>> each(Future<List<Object>> read, int count) {
    List<Future<ObjectStore.Range>> answers = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      int index = i;
      answers.add(
          read.compose(
              tails ->
                  tails.get(index) instanceof ObjectStore.Range tail
                      ? Future.succeededFuture(tail)
                      : Future.failedFuture((Throwable) tails.get(index))));
    }
    return answers;
  }
}
