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

/**
 * The storage half of finalizing a version, run while the caller holds the version's slot: an
 * uncommitted row in an open transaction, which every other request for the slot waits behind.
 *
 * <ol>
 *   <li>insert the row (the caller, in its transaction);
 *   <li>{@link #createFinal}: copy the staging manifest to its final name, create-if-absent and
 *       synced, marked with the row's transaction id; a final manifest that still carries another
 *       attempt's mark was left by an attempt that died and is replaced; one without a mark is
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
  private Finalizer() {}

  /** Copies the staging manifest to its final name under {@code attempt}; see the class comment. */
  static Future<ObjectStore.ObjectInfo> createFinal(Manifests.Target target, UUID attempt) {
    return createFinal(target, attempt, true);
  }

  private static Future<ObjectStore.ObjectInfo> createFinal(
      Manifests.Target target, UUID attempt, boolean mayReplaceAbandoned) {
    ObjectStore store = target.store();
    return store
        .createFinal(target.stagingKey(), target.finalKey(), attempt.toString())
        .compose(
            copy ->
                switch (copy.outcome()) {
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
                                          ? createFinal(target, attempt, false)
                                          : Future.failedFuture(otherContent()))
                          : Future.failedFuture(otherContent());
                });
  }

  private static ApiException otherContent() {
    return ApiException.conflict(
        "the final manifest of this version already exists with other content");
  }

  /** Once the row of {@code attempt} committed: the staging manifest and the mark go. */
  static Future<Void> settle(Manifests.Target target, UUID attempt) {
    return settleAll(List.of(target), List.of(attempt));
  }

  /**
   * Once the rows of {@code attempts} committed: their staging manifests and marks go, in one call
   * per store; {@code targets.get(i)} belongs to {@code attempts.get(i)}. Cleanup failures are left
   * to a replay, which settles again.
   */
  static Future<Void> settleAll(List<Manifests.Target> targets, List<UUID> attempts) {
    Map<ObjectStore, List<ObjectStore.Settlement>> byStore = new IdentityHashMap<>();
    for (int i = 0; i < targets.size(); i++) {
      Manifests.Target target = targets.get(i);
      byStore
          .computeIfAbsent(target.store(), store -> new ArrayList<>())
          .add(
              new ObjectStore.Settlement(
                  target.stagingKey(), target.finalKey(), attempts.get(i).toString()));
    }
    return Future.join(
            byStore.entrySet().stream()
                .map(
                    each ->
                        each.getKey()
                            .settleAll(each.getValue())
                            .recover(cleanupFailed -> Future.succeededFuture()))
                .toList())
        .mapEmpty();
  }
}
