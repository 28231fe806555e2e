package dev.lvg.storage;

import dev.lvg.storage.ObjectStore.Copy;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.Map;

/**
 * A final manifest the local store linked (or copied, or found), and what makes it durable before
 * it counts: the group sync of {@code ticket}, or a sync of {@code ownSync} and its directory on
 * their own, or nothing (it is durable already); or the failure of its placement.
 */
record Linked(Copy copy, GroupSync.Ticket ticket, Path ownSync, StorageException failure) {
  static Linked failed(StorageException failure) {
    return new Linked(null, null, null, failure);
  }

  /** A manifest durable already, or an outcome with nothing to make durable. */
  static Linked synced(Copy copy) {
    return new Linked(copy, null, null, null);
  }

  /**
   * A manifest made durable by the group sync of {@code ticket}, or else with the file and its
   * directory synced on their own, as every file is once a sync of its file system has failed (a
   * file's own sync reports a write-back error of its data that a file-system sync already
   * reported).
   */
  static Linked durable(Copy copy, Path target, GroupSync.Ticket ticket) {
    if (ticket != null && ticket.failuresBefore() == 0) {
      return new Linked(copy, ticket, null, null);
    }
    return new Linked(copy, null, target, null);
  }

  /** The copy once durable: after its group's sync, or its own sync on a worker thread. */
  Future<Copy> durable(Vertx vertx, Map<GroupSync.Ticket, Future<Void>> syncs, String finalKey) {
    if (failure != null) {
      return Future.failedFuture(failure);
    }
    Future<Void> synced;
    if (ticket != null) {
      synced = syncs.get(ticket);
    } else if (ownSync != null) {
      // A task of its own for each file, so the syncs of a batch run side by side on the worker
      // threads and the file system can commit them together.
      synced =
          vertx.executeBlocking(
              () -> {
                LocalFiles.syncFile(ownSync);
                return null;
              },
              false);
    } else {
      return Future.succeededFuture(copy);
    }
    return synced
        .recover(error -> Future.failedFuture(new StorageException("sync", finalKey, error)))
        .map(copy);
  }
}
