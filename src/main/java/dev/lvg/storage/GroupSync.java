package dev.lvg.storage;

import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes what callers wrote to a file system durable with one file-system sync for many of them. A
 * caller's files and names are durable once a sync that began after it asked has finished. While
 * one sync runs, the callers that ask gather for the next, so under load one sync serves a whole
 * batch of new manifests, where a sync of each file and of its directory would cost every manifest
 * two device cache flushes; a lone caller waits for one sync of its own.
 *
 * <p>Each file system is known by its device number and synced through a descriptor opened once, so
 * a sync also reports a write-back error that happened on it since the last sync, whoever saw it
 * first. Syncs run on worker threads, one at a time per file system; callers hear the outcome on
 * their own context. Thread-safe.
 */
final class GroupSync {
  /** The file-system operations a group sync needs; {@link Syncfs} on Linux. */
  interface FileSystems {
    /** A descriptor of {@code directory} that the process keeps open. */
    int open(Path directory) throws IOException;

    /** Writes everything cached for the file system of {@code descriptor} durably. */
    void sync(int descriptor) throws IOException;

    void close(int descriptor) throws IOException;
  }

  private final Vertx vertx;
  private final FileSystems fileSystems;
  private final Map<Long, Device> devices = new HashMap<>();

  GroupSync(Vertx vertx, FileSystems fileSystems) {
    this.vertx = vertx;
    this.fileSystems = fileSystems;
  }

  /**
   * Where a caller stands before it writes: the device of its file system, and how many syncs of it
   * had failed then.
   */
  record Ticket(long device, long failuresBefore) {}

  /**
   * Blocking, for a worker thread, before the caller writes under {@code directory}: readies that
   * file system (opening a descriptor of it the first time) and answers the caller's ticket.
   */
  Ticket ticket(Path directory) throws IOException {
    long id = ((Number) Files.getAttribute(directory, "unix:dev")).longValue();
    synchronized (this) {
      Device known = devices.get(id);
      if (known != null) {
        return new Ticket(id, known.failures);
      }
    }
    int descriptor = fileSystems.open(directory);
    Device device;
    synchronized (this) {
      device = devices.putIfAbsent(id, new Device(descriptor));
      if (device == null) {
        return new Ticket(id, 0);
      }
    }
    fileSystems.close(descriptor);
    synchronized (this) {
      return new Ticket(id, device.failures);
    }
  }

  /**
   * Completes, on the caller's context, once a sync of the ticket's file system begun after now has
   * finished. Fails if that sync failed, or if any sync of it failed after the ticket was taken:
   * such a sync may have been writing the caller's files when it failed, and the kernel reports a
   * write-back error to a file-system sync once. A caller whose ticket counts a failure should sync
   * its files on its own instead: a file's own sync reports its errors again.
   */
  Future<Void> after(Ticket ticket) {
    Context context = vertx.getOrCreateContext();
    Promise<Void> promise = Promise.promise();
    Device target;
    boolean start;
    synchronized (this) {
      target = devices.get(ticket.device());
      if (target == null) {
        return Future.failedFuture(
            new IllegalStateException("device " + ticket.device() + " unknown"));
      }
      target.next.add(new Waiter(context, promise, ticket.failuresBefore()));
      start = !target.syncing;
      target.syncing = true;
    }
    if (start) {
      round(target);
    }
    return promise.future();
  }

  private void round(Device device) {
    List<Waiter> batch;
    synchronized (this) {
      batch = device.next;
      device.next = new ArrayList<>();
    }
    vertx
        .<Void>executeBlocking(
            () -> {
              try {
                fileSystems.sync(device.descriptor);
              } catch (IOException failed) {
                synchronized (this) {
                  device.failures++;
                }
                throw failed;
              }
              return null;
            },
            false)
        .onComplete(
            result -> {
              long failures;
              synchronized (this) {
                failures = device.failures;
              }
              for (Waiter waiter : batch) {
                waiter.hear(
                    result.succeeded() && waiter.failuresBefore != failures
                        ? Future.failedFuture(
                            new IOException(
                                "a sync of this file system failed after the file was written"))
                        : result);
              }
              boolean again;
              synchronized (this) {
                again = !device.next.isEmpty();
                device.syncing = again;
              }
              if (again) {
                round(device);
              }
            });
  }

  private static final class Device {
    final int descriptor;
    List<Waiter> next = new ArrayList<>();
    boolean syncing;
    long failures;

    Device(int descriptor) {
      this.descriptor = descriptor;
    }
  }

  private record Waiter(Context context, Promise<Void> promise, long failuresBefore) {
    void hear(AsyncResult<Void> result) {
      context.runOnContext(now -> promise.handle(result));
    }
  }
}
