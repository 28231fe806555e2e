package dev.lvg.version;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lvg.audit.Actor;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.TableId;
import dev.lvg.tenancy.Tenant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Every branch of the decision order after an insert that claimed nothing. */
class CommitDecisionTest {
  private static final Tenant TENANT = new Tenant(1, "t");

  private static NewVersion request(long version, String branch, String path) {
    return new NewVersion(
        Actor.of(TENANT, "k_test", "r1"),
        TableId.of(List.of("ns", "t")),
        version,
        branch,
        path,
        null,
        null,
        null,
        null,
        UUID.randomUUID(),
        null,
        null);
  }

  private static TableVersion row(long version, String requested, String finalPath) {
    return new TableVersion(
        version, finalPath, requested, 3L, "e", null, UUID.randomUUID(), 1L, null);
  }

  private static ErrorCode refusal(CommitDecision.Decision decision) {
    assertThat(decision).isInstanceOf(CommitDecision.Refused.class);
    ApiException error = ((CommitDecision.Refused) decision).error();
    return error.errorCode();
  }

  @Test
  void aMissingBranchComesFirst() {
    Slot slot = new Slot("/t", false, row(3, "p", "p"), 2L);
    assertThat(refusal(CommitDecision.decide(request(3, "dev", "p"), slot)))
        .isEqualTo(ErrorCode.TABLE_BRANCH_NOT_FOUND);
  }

  @Test
  void mainNeedsNoBranchRow() {
    Slot slot = new Slot("/t", false, null, null);
    assertThat(CommitDecision.decide(request(1, "main", "p"), slot))
        .isInstanceOf(CommitDecision.Free.class);
  }

  @Test
  void aRowFromTheSameStagingPathIsAReplay() {
    TableVersion stored = row(3, "staging", "final");
    CommitDecision.Decision decision =
        CommitDecision.decide(request(3, "main", "staging"), new Slot("/t", true, stored, 3L));
    assertThat(decision).isEqualTo(new CommitDecision.Replay(stored));
  }

  @Test
  void aRowFromTheSameFinalPathIsAReplay() {
    TableVersion stored = row(3, "staging", "final");
    assertThat(CommitDecision.decide(request(3, "dev", "final"), new Slot("/t", true, stored, 3L)))
        .isEqualTo(new CommitDecision.Replay(stored));
  }

  @Test
  void aRowFromAnotherPathIsAConflict() {
    Slot slot = new Slot("/t", true, row(3, "staging", "final"), 3L);
    assertThat(refusal(CommitDecision.decide(request(3, "main", "other"), slot)))
        .isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
  }

  @Test
  void aVersionThatIsNotLatestPlusOneIsAConflict() {
    assertThat(
            refusal(CommitDecision.decide(request(5, "main", "p"), new Slot("/t", true, null, 3L))))
        .isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
    assertThat(
            refusal(CommitDecision.decide(request(2, "main", "p"), new Slot("/t", true, null, 3L))))
        .isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
  }

  @Test
  void theNextVersionOrAnyFirstVersionFindsTheSlotFree() {
    assertThat(CommitDecision.decide(request(4, "main", "p"), new Slot("/t", true, null, 3L)))
        .isInstanceOf(CommitDecision.Free.class);
    assertThat(CommitDecision.decide(request(9, "main", "p"), new Slot("/t", true, null, null)))
        .isInstanceOf(CommitDecision.Free.class);
  }

  @Test
  void aFreeSlotAfterAFailedInsertIsTheFailureOrALostRace() {
    NewVersion request = request(4, "main", "p");
    Slot free = new Slot("/t", true, null, 3L);
    RuntimeException outage = new RuntimeException("connection reset");
    assertThat(CommitDecision.answer(request, free, outage).cause()).isSameAs(outage);
    assertThat(((ApiException) CommitDecision.answer(request, free, null).cause()).errorCode())
        .isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
    TableVersion stored = row(4, "p", "p");
    CommitOutcome replay =
        CommitDecision.answer(request, new Slot("/t", true, stored, 4L), outage).result();
    assertThat(replay).isEqualTo(new CommitOutcome(stored, false));
  }

  @Test
  void aTransactionTheBranchHoldsIsRefusedNamingItsVersionAfterTheReplayCheck() {
    UUID transaction = UUID.randomUUID();
    NewVersion again = request(3, "main", "staging-3").withStagedManifest(transaction, null);
    CommitDecision.Decision decision =
        CommitDecision.decide(again, new Slot("/t", true, null, 2L, 2L));
    assertThat(refusal(decision)).isEqualTo(ErrorCode.CONCURRENT_MODIFICATION);
    assertThat(((CommitDecision.Refused) decision).error().getMessage())
        .isEqualTo("transaction " + transaction + " is already committed as version 2");

    TableVersion stored = row(3, "staging-3", "final");
    assertThat(CommitDecision.decide(again, new Slot("/t", true, stored, 3L, 3L)))
        .as("a retry of the request that committed it")
        .isEqualTo(new CommitDecision.Replay(stored));
    NewVersion onBranch = request(5, "dev", "s").withStagedManifest(transaction, null);
    assertThat(
            ((CommitDecision.Refused)
                    CommitDecision.decide(onBranch, new Slot("/t", true, null, 4L, 4L)))
                .error()
                .getMessage())
        .endsWith("as version 4 of branch dev");
  }
}
