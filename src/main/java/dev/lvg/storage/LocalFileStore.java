package dev.lvg.storage;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import org.slf4j.LoggerFactory;

/**
 * Objects on the local file system; keys are absolute paths. File I/O runs on worker threads.
 *
 * <p>A final manifest is the staging manifest hard-linked to the final name, which fails atomically
 * when the name exists, so a reader never sees a partial manifest and the bytes are the writer's
 * own. Where the file system cannot link (or the staging file went between the check and the link),
 * the bytes are copied instead, through a synced file named after the transaction id, {@code
 * .<final name>.<transaction id>.lvg}, linked to the final name; that mark stays, a second link to
 * the same bytes, until that transaction's row commits, so a final manifest that shares its file
 * with a mark was left by a commit that died.
 *
 * <p>A final manifest's bytes and name are durable before {@link #createFinal} answers: the file
 * and its directory synced on their own, or, in a store made by {@link #grouped}, by a file-system
 * sync begun after the link (see {@link GroupSync}) until one such sync fails, and on their own
 * after that.
 */
public final class LocalFileStore implements ObjectStore {
  private final Vertx vertx;
  private final GroupSync group;
  private final FinalLinks links;

  /** A store that syncs each new manifest and its directory on their own. */
  public LocalFileStore(Vertx vertx) {
    this(vertx, null);
  }

  LocalFileStore(Vertx vertx, GroupSync group) {
    this.vertx = vertx;
    this.group = group;
    this.links = new FinalLinks(vertx, group);
  }

  /** The store for a {@code file://} root, syncing in groups when asked; logs which. */
  public static LocalFileStore forRoot(Vertx vertx, StorageRoot root, boolean groupSync) {
    LocalFileStore store =
        groupSync ? grouped(vertx, Path.of(root.locationPrefix())) : new LocalFileStore(vertx);
    LoggerFactory.getLogger(LocalFileStore.class)
        .info(
            "new manifests under {} are made durable {}",
            root.uri(),
            store.syncsInGroups()
                ? "in groups, one syncfs(2) for many"
                : "one by one, each file and its directory synced");
    return store;
  }

  /**
   * A store that makes new manifests durable in groups, one file-system sync for many (see {@link
   * GroupSync}), where the platform has syncfs(2) and it works under {@code root}; one that syncs
   * each on its own otherwise.
   */
  public static LocalFileStore grouped(Vertx vertx, Path root) {
    Path probe = root.toAbsolutePath();
    while (probe.getParent() != null && !Files.isDirectory(probe)) {
      probe = probe.getParent();
    }
    return Syncfs.load(probe)
        .map(fileSystems -> new LocalFileStore(vertx, new GroupSync(vertx, fileSystems)))
        .orElseGet(() -> new LocalFileStore(vertx));
  }

  /** Whether new manifests are made durable in groups. */
  public boolean syncsInGroups() {
    return group != null;
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
  public Future<Range> readTail(String key, int length) {
    return blocking("read", key, () -> LocalFiles.readPart(key, -1, length));
  }

  /** All the tails in one worker task: one hand-off for a batch instead of one per manifest. */
  @Override
  public List<Future<Range>> readTails(List<String> keys, int length) {
    return LocalFiles.each(
        vertx.executeBlocking(() -> LocalFiles.readTails(keys, length), false), keys.size());
  }

  @Override
  public Future<Range> readRange(String key, long offset, int length) {
    return blocking("read", key, () -> LocalFiles.readPart(key, offset, length));
  }

  @Override
  public Future<ObjectInfo> stat(String key) {
    return blocking(
        "stat",
        key,
        () -> {
          try {
            return LocalFiles.describe(Path.of(key));
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
          Path written = LocalFiles.writeAside(target, bytes);
          try {
            Files.createLink(target, written);
          } catch (FileAlreadyExistsException exists) {
            return false;
          } finally {
            Files.deleteIfExists(written);
          }
          LocalFiles.syncDirectory(target.getParent());
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
          Files.move(LocalFiles.writeAside(target, bytes), target, StandardCopyOption.ATOMIC_MOVE);
          LocalFiles.syncDirectory(target.getParent());
          return null;
        });
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
  public Future<Copy> createFinal(String staging, String finalKey, String transactionId) {
    return createFinalAll(List.of(new Placement(staging, finalKey, transactionId))).get(0);
  }

  /** See {@link FinalLinks#createAll}. */
  @Override
  public List<Future<Copy>> createFinalAll(List<Placement> placements) {
    return links.createAll(placements);
  }

  /** See {@link LocalFiles#removeAbandoned}. */
  @Override
  public Future<Boolean> removeAbandoned(String finalKey) {
    return blocking("remove", finalKey, () -> LocalFiles.removeAbandoned(Path.of(finalKey)));
  }

  @Override
  public Future<Void> settle(String staging, String finalKey, String transactionId) {
    return settleAll(List.of(new Placement(staging, finalKey, transactionId)));
  }

  /** One worker task for the whole list; every settlement is tried, the first failure reported. */
  @Override
  public Future<Void> settleAll(List<Placement> settlements) {
    if (settlements.isEmpty()) {
      return Future.succeededFuture();
    }
    return blocking(
        "settle",
        settlements.get(0).finalKey(),
        () -> {
          IOException first = null;
          for (Placement one : settlements) {
            try {
              if (!one.staging().equals(one.finalKey())) {
                Files.deleteIfExists(Path.of(one.staging()));
              }
              Files.deleteIfExists(LocalFiles.mark(Path.of(one.finalKey()), one.transactionId()));
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
}
