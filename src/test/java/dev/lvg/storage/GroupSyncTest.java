package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One file-system sync serves every caller that asked before it began, and no caller after. */
class GroupSyncTest {
  private final Vertx vertx = Vertx.vertx();
  private final Gated fileSystems = new Gated();
  private final GroupSync group = new GroupSync(vertx, fileSystems);
  @TempDir Path directory;

  @AfterEach
  void close() {
    fileSystems.gate.release(1_000);
    vertx.close();
  }

  /** Syncs that wait for the test to let them finish, and say when they begin. */
  private static final class Gated implements GroupSync.FileSystems {
    final AtomicInteger opens = new AtomicInteger();
    final AtomicInteger closes = new AtomicInteger();
    final BlockingQueue<Integer> begun = new LinkedBlockingQueue<>();
    final Semaphore gate = new Semaphore(0);
    final AtomicInteger syncs = new AtomicInteger();
    volatile int failing = -1;

    @Override
    public int open(Path directory) {
      return 100 + opens.incrementAndGet();
    }

    @Override
    public void sync(int descriptor) throws IOException {
      int round = syncs.incrementAndGet();
      begun.add(round);
      try {
        gate.acquire();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (round == failing) {
        throw new IOException("write-back failed in round " + round);
      }
    }

    @Override
    public void close(int descriptor) {
      closes.incrementAndGet();
    }

    int nextRound() throws InterruptedException {
      Integer round = begun.poll(5, TimeUnit.SECONDS);
      assertThat(round).as("a sync began").isNotNull();
      return round;
    }
  }

  private static <T> T await(Future<T> future) throws Exception {
    return future.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
  }

  @Test
  void callersThatAskDuringASyncWaitForTheNextOneAndShareIt() throws Exception {
    GroupSync.Ticket ticket = group.ticket(directory);
    Future<Void> first = group.after(ticket);
    assertThat(fileSystems.nextRound()).isEqualTo(1);

    Future<Void> second = group.after(ticket);
    Future<Void> third = group.after(ticket);
    fileSystems.gate.release();
    await(first);

    assertThat(fileSystems.nextRound()).isEqualTo(2);
    assertThat(second.isComplete()).as("served by a sync begun before it asked").isFalse();
    assertThat(third.isComplete()).isFalse();
    fileSystems.gate.release();
    await(second);
    await(third);
    assertThat(fileSystems.syncs.get()).isEqualTo(2);
    assertThat(fileSystems.begun).isEmpty();
  }

  @Test
  void aFailedSyncFailsItsCallersAndEveryCallerThatWroteBeforeItButNotTheOnesAfter()
      throws Exception {
    GroupSync.Ticket before = group.ticket(directory);
    fileSystems.failing = 1;
    Future<Void> first = group.after(group.ticket(directory));
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    fileSystems.gate.release();
    assertThatThrownBy(() -> await(first)).hasRootCauseMessage("write-back failed in round 1");

    // Its files were written before the failed sync ended, which may have been writing them: the
    // next sync succeeding does not make them durable.
    Future<Void> wroteBefore = group.after(before);
    assertThat(fileSystems.nextRound()).isEqualTo(2);
    fileSystems.gate.release();
    assertThatThrownBy(() -> await(wroteBefore))
        .hasRootCauseInstanceOf(IOException.class)
        .hasRootCauseMessage("a sync of this file system failed after the file was written");

    Future<Void> wroteAfter = group.after(group.ticket(directory));
    assertThat(fileSystems.nextRound()).isEqualTo(3);
    fileSystems.gate.release();
    await(wroteAfter);
    assertThat(wroteAfter.succeeded()).isTrue();
  }

  @Test
  void eachFileSystemIsOpenedOnce() throws Exception {
    Path other = Files.createDirectory(directory.resolve("table"));
    GroupSync.Ticket ticket = group.ticket(directory);
    assertThat(group.ticket(other)).isEqualTo(ticket);
    assertThat(group.ticket(directory)).isEqualTo(ticket);
    assertThat(fileSystems.opens.get()).isEqualTo(1);
    assertThat(fileSystems.closes.get()).isZero();
  }

  @Test
  void anUnknownDeviceFailsInsteadOfWaiting() {
    assertThat(group.after(new GroupSync.Ticket(-7, 0)).failed()).isTrue();
  }

  @Test
  void callersHearTheOutcomeOnTheirOwnContext() throws Exception {
    GroupSync.Ticket ticket = group.ticket(directory);
    Context caller = vertx.getOrCreateContext();
    CompletableFuture<Boolean> onCaller = new CompletableFuture<>();
    caller.runOnContext(
        start ->
            group
                .after(ticket)
                .onComplete(done -> onCaller.complete(Vertx.currentContext() == caller)));
    fileSystems.nextRound();
    fileSystems.gate.release();
    assertThat(onCaller.get(5, TimeUnit.SECONDS)).isTrue();
  }

  @Test
  void syncfsWorksHereAndNamesTheErrnoOfAFailure() throws Exception {
    Syncfs syncfs = Syncfs.load(directory).orElseThrow();
    int descriptor = syncfs.open(directory);
    syncfs.sync(descriptor);
    syncfs.close(descriptor);
    assertThatThrownBy(() -> syncfs.open(directory.resolve("missing")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("errno 2");
  }

  @Test
  void aGroupedLocalStoreCreatesAFinalManifestOnceAndKnowsItAfterwards() throws Exception {
    LocalFileStore store = LocalFileStore.grouped(vertx, directory);
    assertThat(store.syncsInGroups()).isTrue();
    Path staging = Files.writeString(directory.resolve("staging.manifest"), "manifest bytes");
    String finalKey = directory.resolve("1.manifest").toString();

    ObjectStore.Copy created = await(store.createFinal(staging.toString(), finalKey, "a1"));
    assertThat(created.outcome()).isEqualTo(ObjectStore.CopyOutcome.CREATED);
    assertThat(Files.readString(Path.of(finalKey))).isEqualTo("manifest bytes");
    assertThat(created.info().size()).isEqualTo("manifest bytes".length());

    ObjectStore.Copy again = await(store.createFinal(staging.toString(), finalKey, "a2"));
    assertThat(again.outcome()).isEqualTo(ObjectStore.CopyOutcome.SAME);
    assertThat(again.info()).isEqualTo(created.info());
  }

  @Test
  void aManifestAnEarlierAttemptLinkedCountsOnlyAfterASyncBegunAfterItWasFound() throws Exception {
    LocalFileStore store = new LocalFileStore(vertx, group);
    Path staging = Files.writeString(directory.resolve("staging.manifest"), "bytes");
    Path finalManifest = directory.resolve("1.manifest");
    // An attempt that died after its link and before any sync left the final name behind.
    Files.createLink(finalManifest, staging);

    Future<ObjectStore.Copy> retry =
        store.createFinal(staging.toString(), finalManifest.toString(), "a2");
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    assertThat(retry.isComplete()).as("not durable until that sync ends").isFalse();
    fileSystems.gate.release();
    assertThat(await(retry).outcome()).isEqualTo(ObjectStore.CopyOutcome.SAME);
  }

  @Test
  void aManifestItsWriterPutAtTheFinalNameCountsOnlyAfterASyncBegunAfterItWasFound()
      throws Exception {
    LocalFileStore store = new LocalFileStore(vertx, group);
    String finalKey = Files.writeString(directory.resolve("1.manifest"), "bytes").toString();

    Future<ObjectStore.Copy> found = store.createFinal(finalKey, finalKey, "a1");
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    assertThat(found.isComplete()).as("not durable until that sync ends").isFalse();
    fileSystems.gate.release();
    assertThat(await(found).outcome()).isEqualTo(ObjectStore.CopyOutcome.SAME);

    String missing = directory.resolve("2.manifest").toString();
    assertThat(await(store.createFinal(missing, missing, "a2")).outcome())
        .isEqualTo(ObjectStore.CopyOutcome.SOURCE_MISSING);
    assertThat(fileSystems.syncs.get()).as("nothing to make durable").isEqualTo(1);
  }

  @Test
  void severalManifestsCreatedTogetherShareOneSyncAndEachKeepsItsOwnOutcome() throws Exception {
    LocalFileStore store = new LocalFileStore(vertx, group);
    List<Future<ObjectStore.Copy>> copies = store.createFinalAll(fourPlacements());
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    assertThat(copies.get(0).isComplete()).as("not durable until that sync ends").isFalse();
    assertThat(copies.get(2).isComplete()).isFalse();
    fileSystems.gate.release();
    assertOutcomesOfFourPlacements(copies);
    assertThat(fileSystems.syncs.get()).as("one sync for the whole group").isEqualTo(1);
  }

  @Test
  void aStoreSyncingEachManifestOnItsOwnCreatesSeveralTogetherEachWithItsOwnOutcome()
      throws Exception {
    LocalFileStore store = new LocalFileStore(vertx);
    assertThat(store.syncsInGroups()).isFalse();
    assertOutcomesOfFourPlacements(store.createFinalAll(fourPlacements()));
  }

  /**
   * Three staging manifests and a missing one for 1..4.manifest, where 2.manifest already holds
   * other bytes.
   */
  private List<ObjectStore.Placement> fourPlacements() throws IOException {
    List<ObjectStore.Placement> placements = new ArrayList<>();
    for (int i = 1; i <= 3; i++) {
      Path staging = Files.writeString(directory.resolve(i + ".manifest-s"), "bytes " + i);
      placements.add(
          new ObjectStore.Placement(
              staging.toString(), directory.resolve(i + ".manifest").toString(), "a" + i));
    }
    Files.writeString(directory.resolve("2.manifest"), "someone else's");
    String missing = directory.resolve("4.manifest-s").toString();
    placements.add(
        new ObjectStore.Placement(missing, directory.resolve("4.manifest").toString(), "a4"));
    return placements;
  }

  private void assertOutcomesOfFourPlacements(List<Future<ObjectStore.Copy>> copies)
      throws Exception {
    assertThat(await(copies.get(0)).outcome()).isEqualTo(ObjectStore.CopyOutcome.CREATED);
    assertThat(await(copies.get(1)).outcome()).isEqualTo(ObjectStore.CopyOutcome.OTHER_BYTES);
    assertThat(await(copies.get(2)).outcome()).isEqualTo(ObjectStore.CopyOutcome.CREATED);
    assertThat(await(copies.get(3)).outcome()).isEqualTo(ObjectStore.CopyOutcome.SOURCE_MISSING);
    assertThat(Files.readString(directory.resolve("1.manifest"))).isEqualTo("bytes 1");
    assertThat(Files.readString(directory.resolve("2.manifest"))).isEqualTo("someone else's");
    assertThat(Files.readString(directory.resolve("3.manifest"))).isEqualTo("bytes 3");
  }

  @Test
  void afterAFailedSyncALocalStoreSyncsEachNewManifestOnItsOwn() throws Exception {
    LocalFileStore store = new LocalFileStore(vertx, group);
    Path staging = Files.writeString(directory.resolve("staging.manifest"), "bytes");
    fileSystems.failing = 1;
    Future<ObjectStore.Copy> first =
        store.createFinal(staging.toString(), directory.resolve("1.manifest").toString(), "a1");
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    fileSystems.gate.release();
    assertThatThrownBy(() -> await(first)).hasRootCauseMessage("write-back failed in round 1");

    // No sync of the group is let through from here on: the copy completes without one.
    ObjectStore.Copy second =
        await(
            store.createFinal(
                staging.toString(), directory.resolve("2.manifest").toString(), "a2"));
    assertThat(second.outcome()).isEqualTo(ObjectStore.CopyOutcome.CREATED);
    assertThat(fileSystems.syncs.get()).isEqualTo(1);
  }
}
