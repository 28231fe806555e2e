package dev.lvg.storage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;

/**
 * Objects on the local file system; keys are absolute paths. File I/O runs on worker threads.
 *
 * <p>A final manifest is created as a synced file named after the attempt, {@code .<final
 * name>.<attempt>.lvg}, hard-linked to the final name, which fails atomically when the name exists,
 * so a reader never sees a partial manifest. The attempt's file stays, a second link to the same
 * bytes, until the attempt's row commits: a final manifest that shares its file with such a mark
 * was left by an attempt that died.
 */
public final class LocalFileStore implements ObjectStore {
  private static final String MARK_SUFFIX = ".lvg";

  private final Vertx vertx;

  public LocalFileStore(Vertx vertx) {
    this.vertx = vertx;
  }

  /**
   * Runs file I/O on a worker thread; failures other than a missing file become storage failures.
   */
  private <T> Future<T> blocking(String operation, String key, Callable<T> io) {
    return vertx
        .executeBlocking(io, false)
        .recover(
            error ->
                Future.failedFuture(
                    error instanceof NoSuchObjectException
                        ? error
                        : new StorageException(operation, key, error)));
  }

  @Override
  public Future<Buffer> read(String key) {
    return blocking(
        "read",
        key,
        () -> {
          try {
            return Buffer.buffer(Files.readAllBytes(Path.of(key)));
          } catch (NoSuchFileException e) {
            throw new NoSuchObjectException(key);
          }
        });
  }

  @Override
  public Future<ObjectInfo> stat(String key) {
    return blocking(
        "stat",
        key,
        () -> {
          try {
            return describe(Path.of(key));
          } catch (NoSuchFileException e) {
            throw new NoSuchObjectException(key);
          }
        });
  }

  @Override
  public Future<Void> deleteIfExists(String key) {
    return blocking(
        "delete",
        key,
        () -> {
          Files.deleteIfExists(Path.of(key));
          return null;
        });
  }

  @Override
  public Future<Boolean> createIfAbsent(String key, Buffer bytes) {
    return blocking(
        "create",
        key,
        () -> {
          Path target = Path.of(key);
          Path written = writeAside(target, bytes);
          try {
            Files.createLink(target, written);
          } catch (FileAlreadyExistsException exists) {
            return false;
          } finally {
            Files.deleteIfExists(written);
          }
          syncDirectory(target.getParent());
          return true;
        });
  }

  @Override
  public Future<Void> replace(String key, Buffer bytes) {
    return blocking(
        "write",
        key,
        () -> {
          Path target = Path.of(key);
          Files.move(writeAside(target, bytes), target, StandardCopyOption.ATOMIC_MOVE);
          syncDirectory(target.getParent());
          return null;
        });
  }

  /** Writes and syncs {@code bytes} to a fresh file next to {@code target}; answers its path. */
  private static Path writeAside(Path target, Buffer bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path aside = target.resolveSibling(target.getFileName() + ".lvg-" + UUID.randomUUID());
    try (FileChannel channel =
        FileChannel.open(aside, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      channel.write(ByteBuffer.wrap(bytes.getBytes()));
      channel.force(true);
    }
    return aside;
  }

  @Override
  public Future<Set<String>> list(String directoryKey) {
    return blocking(
        "list",
        directoryKey,
        () -> {
          Set<String> names = new HashSet<>();
          try (DirectoryStream<Path> entries = Files.newDirectoryStream(Path.of(directoryKey))) {
            entries.forEach(entry -> names.add(entry.getFileName().toString()));
          } catch (NoSuchFileException missing) {
            return names;
          }
          return names;
        });
  }

  @Override
  public Future<Long> deleteTree(String directoryKey) {
    return blocking("delete", directoryKey, () -> FileTree.delete(Path.of(directoryKey)));
  }

  @Override
  public Future<Copy> createFinal(String staging, String finalKey, String attempt) {
    return blocking("create", finalKey, () -> copy(Path.of(staging), Path.of(finalKey), attempt));
  }

  private static Copy copy(Path staging, Path target, String attempt) throws IOException {
    if (staging.equals(target)) {
      return Files.exists(target)
          ? new Copy(CopyOutcome.SAME, describe(target))
          : new Copy(CopyOutcome.SOURCE_MISSING, null);
    }
    try {
      Files.createLink(target, staging);
    } catch (NoSuchFileException missing) {
      return Files.exists(staging) ? copyThroughMark(staging, target, attempt) : sourceMissing();
    } catch (FileAlreadyExistsException exists) {
      return compare(staging, target);
    } catch (IOException | UnsupportedOperationException noLinks) {
      return copyThroughMark(staging, target, attempt);
    }
    try (FileChannel data = FileChannel.open(target, StandardOpenOption.READ)) {
      data.force(false);
    }
    syncDirectory(target.getParent());
    return new Copy(CopyOutcome.CREATED, describe(target));
  }

  /**
   * Where the staging manifest cannot be linked (another file system, or none with links): a synced
   * copy named after the attempt, linked to the final name.
   */
  private static Copy copyThroughMark(Path staging, Path target, String attempt)
      throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(staging);
    } catch (NoSuchFileException e) {
      return sourceMissing();
    }
    Path directory = target.getParent();
    Files.createDirectories(directory);
    Path mark = mark(target, attempt);
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
      return compare(staging, target);
    }
    syncDirectory(directory);
    return new Copy(CopyOutcome.CREATED, describe(target));
  }

  private static Copy compare(Path staging, Path target) throws IOException {
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

  private static Copy sourceMissing() {
    return new Copy(CopyOutcome.SOURCE_MISSING, null);
  }

  /**
   * A final manifest was left by an attempt that died when it is still the same file as a staging
   * manifest next to it (named after it, as Lance names staging manifests) or as an attempt's mark.
   */
  @Override
  public Future<Boolean> removeAbandoned(String finalKey) {
    return blocking(
        "remove",
        finalKey,
        () -> {
          Path target = Path.of(finalKey);
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
        });
  }

  @Override
  public Future<Void> settle(String staging, String finalKey, String attempt) {
    return settleAll(List.of(new Settlement(staging, finalKey, attempt)));
  }

  /** One worker task for the whole list; every settlement is tried, the first failure reported. */
  @Override
  public Future<Void> settleAll(List<Settlement> settlements) {
    if (settlements.isEmpty()) {
      return Future.succeededFuture();
    }
    return blocking(
        "settle",
        settlements.get(0).finalKey(),
        () -> {
          IOException first = null;
          for (Settlement one : settlements) {
            try {
              if (!one.staging().equals(one.finalKey())) {
                Files.deleteIfExists(Path.of(one.staging()));
              }
              Files.deleteIfExists(mark(Path.of(one.finalKey()), one.attempt()));
            } catch (IOException e) {
              first = first == null ? e : first;
            }
          }
          if (first != null) {
            throw first;
          }
          return null;
        });
  }

  private static Path mark(Path target, String attempt) {
    return target.resolveSibling("." + target.getFileName() + "." + attempt + MARK_SUFFIX);
  }

  /** Makes a new or removed name in {@code directory} durable. */
  private static void syncDirectory(Path directory) throws IOException {
    try (FileChannel channel = FileChannel.open(directory, StandardOpenOption.READ)) {
      channel.force(true);
    }
  }

  /** The entity tag has the form object_store gives local files, which Lance writers see too. */
  private static ObjectInfo describe(Path path) throws IOException {
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
}
