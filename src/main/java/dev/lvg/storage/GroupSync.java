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
 * a sync also reports a write-back error that happened on it since then, whoever saw it first.
 * Syncs run on worker threads, one at a time per file system; callers hear the outcome on their own
 * context. Thread-safe.
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
   * Blocking, for a worker thread: readies the file system {@code directory} is on (opening a
   * descriptor of it the first time) and answers its device number, for {@link #after}.
   */
  long register(Path directory) throws IOException {
    long device = ((Number) Files.getAttribute(directory, "unix:dev")).longValue();
    synchronized (this) {
      if (devices.containsKey(device)) {
        return device;
      }
    }
    int descriptor = fileSystems.open(directory);
    boolean first;
    synchronized (this) {
      first = devices.putIfAbsent(device, new Device(descriptor)) == null;
    }
    if (!first) {
      fileSystems.close(descriptor);
    }
    return device;
  }

  /** Completes, on the caller's context, once a sync of {@code device} begun after now is done. */
  Future<Void> after(long device) {
    Context context = vertx.getOrCreateContext();
    Promise<Void> promise = Promise.promise();
    Device target;
    boolean start;
    synchronized (this) {
      target = devices.get(device);
      if (target == null) {
        return Future.failedFuture(new IllegalStateException("device " + device + " unknown"));
      }
      target.next.add(new Waiter(context, promise));
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
              fileSystems.sync(device.descriptor);
              return null;
            },
            false)
        .onComplete(
            result -> {
              for (Waiter waiter : batch) {
                waiter.hear(result);
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

    Device(int descriptor) {
      this.descriptor = descriptor;
    }
  }

  private record Waiter(Context context, Promise<Void> promise) {
    void hear(AsyncResult<Void> result) {
      context.runOnContext(now -> promise.handle(result));
    }
  }
}
