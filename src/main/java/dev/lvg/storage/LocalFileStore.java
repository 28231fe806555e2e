package dev.lvg.storage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Objects on the local file system; keys are absolute paths. File I/O runs on worker threads.
 * Create-if-absent writes a synced temporary file and hard-links it to the final name, which fails
 * atomically when the name exists, so a reader never sees a partial manifest.
 */
public final class LocalFileStore implements ObjectStore {
  private final Vertx vertx;

  public LocalFileStore(Vertx vertx) {
    this.vertx = vertx;
  }

  /** Runs file I/O on a worker thread; failures other than a missing file become storage failures. */
  private <T> Future<T> blocking(String operation, String key, java.util.concurrent.Callable<T> io) {
    return vertx.executeBlocking(io, false).recover(error -> Future.failedFuture(
        error instanceof NoSuchObjectException ? error : new StorageException(operation, key, error)));
  }

  @Override
  public Future<Buffer> read(String key) {
    return blocking("read", key, () -> {
      try {
        return Buffer.buffer(Files.readAllBytes(Path.of(key)));
      } catch (NoSuchFileException e) {
        throw new NoSuchObjectException(key);
      }
    });
  }

  @Override
  public Future<Boolean> createIfAbsent(String key, Buffer bytes) {
    return blocking("create", key, () -> create(Path.of(key), bytes.getBytes()));
  }

  /** One worker-thread call for the whole copy: read, synced write and link, compare, describe. */
  @Override
  public Future<Copy> copyIfAbsent(String from, String to) {
    if (from.equals(to)) {
      return ObjectStore.super.copyIfAbsent(from, to);
    }
    return blocking("copy", to, () -> {
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(Path.of(from));
      } catch (NoSuchFileException e) {
        return new Copy(CopyOutcome.SOURCE_MISSING, null);
      }
      Path target = Path.of(to);
      if (create(target, bytes)) {
        return new Copy(CopyOutcome.CREATED, describe(target));
      }
      return java.util.Arrays.equals(Files.readAllBytes(target), bytes)
          ? new Copy(CopyOutcome.SAME, describe(target))
          : new Copy(CopyOutcome.OTHER_BYTES, null);
    });
  }

  /** Create-if-absent: a synced temporary file, hard-linked to the name only if the name is free. */
  private static boolean create(Path target, byte[] bytes) throws IOException {
    Files.createDirectories(target.getParent());
    Path temporary = target.resolveSibling("." + target.getFileName() + ".tmp-" + UUID.randomUUID());
    Files.write(temporary, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE, StandardOpenOption.DSYNC);
    try {
      Files.createLink(target, temporary);
      return true;
    } catch (FileAlreadyExistsException exists) {
      return false;
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  @Override
  public Future<ObjectInfo> stat(String key) {
    return blocking("stat", key, () -> {
      try {
        return describe(Path.of(key));
      } catch (NoSuchFileException e) {
        throw new NoSuchObjectException(key);
      }
    });
  }

  /** The entity tag has the form object_store gives local files, which Lance writers see too. */
  private static ObjectInfo describe(Path path) throws IOException {
    long size = Files.size(path);
    FileTime modified = Files.getLastModifiedTime(path);
    Object inode = Files.getAttribute(path, "unix:ino");
    String eTag = Long.toHexString(((Number) inode).longValue()) + "-"
        + Long.toHexString(modified.to(TimeUnit.MICROSECONDS)) + "-" + Long.toHexString(size);
    return new ObjectInfo(size, eTag);
  }

  @Override
  public Future<Void> deleteIfExists(String key) {
    return blocking("delete", key, () -> {
      Files.deleteIfExists(Path.of(key));
      return null;
    });
  }
}
