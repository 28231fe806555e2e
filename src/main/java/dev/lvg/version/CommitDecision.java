package dev.lvg.version;

import dev.lvg.catalog.Branches;
import dev.lvg.http.ApiException;
import io.vertx.core.Future;

/**
 * The decision order of {@code version/create} for a request whose insert claimed nothing (or whose
 * outcome is unknown), as a pure function of the request and what occupies its slot. The table
 * exists (a missing one is answered before); the rules, first match wins:
 *
 * <ol>
 *   <li>a branch other than main that does not exist: 404 code 22;
 *   <li>a row in the slot from the same manifest path (the staging path sent, or the final one): a
 *       replay, 200 with the stored row; from another path: 409 code 14;
 *   <li>a Lance transaction the branch already holds in another version: 409 code 14 naming that
 *       version (the same transaction rebased and committed again after its answer was lost);
 *   <li>a version that is not the branch's latest + 1: 409 code 14;
 *   <li>otherwise the slot is free and the number is next.
 * </ol>
 */
final class CommitDecision {
  private CommitDecision() {}

  /** One of: a replay of the stored row, a refusal, or a free slot. */
  sealed interface Decision permits Replay, Refused, Free {}

  record Replay(TableVersion row) implements Decision {}

  record Refused(ApiException error) implements Decision {}

  record Free() implements Decision {}

  static Decision decide(NewVersion request, Slot slot) {
    if (!Branches.MAIN.equals(request.branch()) && !slot.branchExists()) {
      return new Refused(Branches.notFound(request.branch()));
    }
    TableVersion row = slot.row();
    if (row != null) {
      return row.sameRequest(request.manifestPath())
          ? new Replay(row)
          : new Refused(
              ApiException.conflict(
                  "version " + request.version() + " already exists with another manifest"));
    }
    if (slot.transactionVersion() != null) {
      return new Refused(alreadyCommitted(request, slot.transactionVersion()));
    }
    if (slot.latest() != null && request.version() != slot.latest() + 1) {
      return new Refused(
          ApiException.conflict(
              "version "
                  + request.version()
                  + " is not the next version; the latest is "
                  + slot.latest()));
    }
    return new Free();
  }

  /**
   * The refusal of a second commit of one Lance transaction. A client must not retry it: the
   * transaction's changes are in the version named.
   */
  static ApiException alreadyCommitted(NewVersion request, long version) {
    return ApiException.conflict(
        "transaction "
            + request.lanceTransaction()
            + " is already committed as version "
            + version
            + (Branches.MAIN.equals(request.branch()) ? "" : " of branch " + request.branch()));
  }

  /**
   * The answer for a request whose insert claimed nothing: a replay, a refusal, or, when the slot
   * is free, {@code whenFree} (the failure that left the outcome unknown), else a lost race.
   */
  static Future<CommitOutcome> answer(NewVersion request, Slot slot, Throwable whenFree) {
    Decision decision = decide(request, slot);
    if (decision instanceof Replay replay) {
      return Future.succeededFuture(new CommitOutcome(replay.row(), false));
    }
    if (decision instanceof Refused refused) {
      return Future.failedFuture(refused.error());
    }
    return Future.failedFuture(
        whenFree != null
            ? whenFree
            : ApiException.conflict(
                "version " + request.version() + " was modified concurrently; retry"));
  }
}
