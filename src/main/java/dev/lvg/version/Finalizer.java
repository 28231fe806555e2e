package dev.lvg.version;

import dev.lvg.http.ApiException;
import dev.lvg.storage.Manifests;
import dev.lvg.storage.ObjectStore;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The storage half of finalizing a version, run while the caller holds the version's slot: an
 * uncommitted row in an open transaction, which every other request for the slot waits behind.
 *
 * <ol>
 *   <li>insert the row (the caller, in its transaction);
 *   <li>{@link #createFinalAll}: copy the staging manifest to its final name, create-if-absent and
 *       synced, marked with the row's transaction id; a final manifest that still carries another
 *       transaction id's mark was left by a commit that died and is replaced; one without a mark is
 *       someone else's and is never touched (409 code 14);
 *   <li>record the final path, size and e_tag in the row and commit (the caller): the one durable
 *       commit;
 *   <li>{@link #settle}: remove the staging manifest and the mark.
 * </ol>
 *
 * A crash before the commit rolls the row back with its transaction and leaves at most a marked
 * final manifest, which the next holder of the slot replaces; a crash after it leaves a committed
 * row whose retry gets 200 and settles.
 */
final class Finalizer {
  private static final Logger LOG = LoggerFactory.getLogger(Finalizer.class);

  private Finalizer() {}

  /**
   * Copies each staging manifest to its final name under its transaction id (see the class
   * comment), one answer per target in order; {@code targets.get(i)} belongs to {@code
   * transactionIds.get(i)}. The copies to one store go out in one call, which may share its work
   * (one sync for all).
   */
  static List<Future<ObjectStore.ObjectInfo>> createFinalAll(
      List<Manifests.Target> targets, List<UUID> transactionIds) {
    Map<ObjectStore, List<Integer>> byStore = byStore(targets);
    List<Future<ObjectStore.ObjectInfo>> answers = new ArrayList<>(targets.size());
    targets.forEach(target -> answers.add(null));
    byStore.forEach(
        (store, indexes) -> {
          List<Future<ObjectStore.Copy>> copies =
              store.createFinalAll(placements(targets, transactionIds, indexes));
          for (int i = 0; i < indexes.size(); i++) {
            int index = indexes.get(i);
            answers.set(
                index,
                copies
                    .get(i)
                    .compose(
                        copy ->
                            outcome(targets.get(index), transactionIds.get(index), copy, true)));
          }
        });
    return answers;
  }

  private static Future<ObjectStore.ObjectInfo> createFinal(
      Manifests.Target target, UUID transactionId, boolean mayReplaceAbandoned) {
    return target
        .store()
        .createFinal(target.stagingKey(), target.finalKey(), transactionId.toString())
        .compose(copy -> outcome(target, transactionId, copy, mayReplaceAbandoned));
  }

  /**
   * What a copy means: done, a client error, or a final manifest with other bytes, replaced once
   * when a commit that died left it.
   */
  private static Future<ObjectStore.ObjectInfo> outcome(
      Manifests.Target target,
      UUID transactionId,
      ObjectStore.Copy copy,
      boolean mayReplaceAbandoned) {
    ObjectStore store = target.store();
    return switch (copy.outcome()) {
      case CREATED, SAME -> Future.succeededFuture(copy.info());
      case SOURCE_MISSING ->
          Future.failedFuture(
              ApiException.invalidInput(
                  "the staging manifest " + target.stagingKey() + " does not exist"));
      case OTHER_BYTES ->
          mayReplaceAbandoned
              ? store
                  .removeAbandoned(target.finalKey())
                  .compose(
                      removed ->
                          removed
                              ? createFinal(target, transactionId, false)
                              : Future.failedFuture(otherContent()))
              : Future.failedFuture(otherContent());
    };
  }

  /** The indexes of {@code targets} by store, in order. */
  private static Map<ObjectStore, List<Integer>> byStore(List<Manifests.Target> targets) {
    Map<ObjectStore, List<Integer>> byStore = new IdentityHashMap<>();
    for (int i = 0; i < targets.size(); i++) {
      byStore.computeIfAbsent(targets.get(i).store(), store -> new ArrayList<>()).add(i);
    }
    return byStore;
  }

  private static List<ObjectStore.Placement> placements(
      List<Manifests.Target> targets, List<UUID> transactionIds, List<Integer> indexes) {
    return indexes.stream()
        .map(
            i ->
                new ObjectStore.Placement(
                    targets.get(i).stagingKey(),
                    targets.get(i).finalKey(),
                    transactionIds.get(i).toString()))
        .toList();
  }

  private static ApiException otherContent() {
    return ApiException.conflict(
        "the final manifest of this version already exists with other content");
  }

  /** Once the row of {@code transactionId} committed: the staging manifest and the mark go. */
  static Future<Void> settle(Manifests.Target target, UUID transactionId) {
    return settleAll(List.of(target), List.of(transactionId));
  }

  /**
   * Once the rows of {@code transactionIds} committed: their staging manifests and marks go, in one
   * call per store; {@code targets.get(i)} belongs to {@code transactionIds.get(i)}. A cleanup
   * failure is logged and left: the version is committed, and a replay settles again.
   */
  static Future<Void> settleAll(List<Manifests.Target> targets, List<UUID> transactionIds) {
    return Future.join(
            byStore(targets).entrySet().stream()
                .map(
                    each ->
                        each.getKey()
                            .settleAll(placements(targets, transactionIds, each.getValue()))
                            .recover(
                                cleanupFailed -> {
                                  LOG.warn(
                                      "staging manifests of committed versions were not removed"
                                          + " (a replay removes them): {}",
                                      cleanupFailed.getMessage());
                                  return Future.succeededFuture();
                                }))
                .toList())
        .mapEmpty();
  }

  /** A replay of a finalized version settles what a crash after its commit may have left. */
  static Future<Void> replayed(Manifests.Target target, TableVersion row) {
    if (target == null || row.manifestPath().equals(row.requestedPath())) {
      return Future.succeededFuture();
    }
    return settle(target, row.transactionId());
  }
}
