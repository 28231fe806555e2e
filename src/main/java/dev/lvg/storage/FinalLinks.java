package dev.lvg.storage;

import dev.lvg.storage.ObjectStore.Copy;
import dev.lvg.storage.ObjectStore.CopyOutcome;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * How {@link LocalFileStore} puts final manifests in place: each staging manifest hard-linked to
 * its final name (or copied through a mark where it cannot be linked), then made durable by a group
 * sync or by syncing the file and its directory.
 */
final class FinalLinks {
  private final Vertx vertx;
  private final GroupSync group;

  FinalLinks(Vertx vertx, GroupSync group) {
    this.vertx = vertx;
    this.group = group;
  }

  /**
   * One worker task links every placement; then one group sync per file system makes them durable,
   * or, without group syncs, one worker task per file syncs it and its directory, side by side (a
   * placement durable already, or that failed, answers at once).
   */
  List<Future<Copy>> createAll(List<ObjectStore.Placement> placements) {
    Future<List<Linked>> linked =
        vertx.executeBlocking(
            () -> {
              List<Linked> all = new ArrayList<>(placements.size());
              for (ObjectStore.Placement one : placements) {
                try {
                  all.add(
                      copy(Path.of(one.staging()), Path.of(one.finalKey()), one.transactionId()));
                } catch (IOException | RuntimeException failed) {
                  all.add(Linked.failed(new StorageException("create", one.finalKey(), failed)));
                }
              }
              return all;
            },
            false);
    Future<List<Future<Copy>>> durable =
        linked.map(
            all -> {
              Map<GroupSync.Ticket, Future<Void>> syncs = syncs(all);
              List<Future<Copy>> each = new ArrayList<>(all.size());
              for (int i = 0; i < all.size(); i++) {
                each.add(all.get(i).durable(vertx, syncs, placements.get(i).finalKey()));
              }
              return each;
            });
    List<Future<Copy>> answers = new ArrayList<>(placements.size());
    for (int i = 0; i < placements.size(); i++) {
      int index = i;
      String finalKey = placements.get(i).finalKey();
      answers.add(
          durable.transform(
              done ->
                  done.succeeded()
                      ? done.result().get(index)
                      : Future.failedFuture(
                          new StorageException("create", finalKey, done.cause()))));
    }
    return answers;
  }

  /**
   * One group sync per ticket among {@code all}, asked for together so that one sync serves all.
   */
  private Map<GroupSync.Ticket, Future<Void>> syncs(List<Linked> all) {
    Map<GroupSync.Ticket, Future<Void>> syncs = new HashMap<>();
    for (Linked one : all) {
      if (one.ticket() != null) {
        syncs.computeIfAbsent(one.ticket(), group::after);
      }
    }
    return syncs;
  }

  private Linked copy(Path staging, Path target, String transactionId) throws IOException {
    if (staging.equals(target)) {
      if (!Files.exists(target)) {
        return Linked.synced(LocalFiles.sourceMissing());
      }
      // The writer put its manifest at the final name itself; it counts once durable like ours.
      return Linked.durable(
          new Copy(CopyOutcome.SAME, LocalFiles.describe(target)),
          target,
          group == null ? null : group.ticket(target.getParent()));
    }
    GroupSync.Ticket ticket = null;
    try {
      if (group != null) {
        ticket = group.ticket(target.getParent());
      }
      Files.createLink(target, staging);
    } catch (NoSuchFileException missing) {
      return Linked.synced(
          Files.exists(staging)
              ? LocalFiles.copyThroughMark(staging, target, transactionId)
              : LocalFiles.sourceMissing());
    } catch (FileAlreadyExistsException exists) {
      // The same bytes may have been linked by a commit that died before they were synced.
      Copy found = LocalFiles.compare(staging, target);
      return found.outcome() == CopyOutcome.SAME
          ? Linked.durable(found, target, ticket)
          : Linked.synced(found);
    } catch (IOException | UnsupportedOperationException noLinks) {
      return Linked.synced(LocalFiles.copyThroughMark(staging, target, transactionId));
    }
    return Linked.durable(
        new Copy(CopyOutcome.CREATED, LocalFiles.describe(target)), target, ticket);
  }
}
