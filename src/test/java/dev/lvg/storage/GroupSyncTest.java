package dev.lvg.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
    long device = group.register(directory);
    Future<Void> first = group.after(device);
    assertThat(fileSystems.nextRound()).isEqualTo(1);

    Future<Void> second = group.after(device);
    Future<Void> third = group.after(device);
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
  void aFailedSyncFailsItsOwnCallersAndTheNextSyncServesTheRest() throws Exception {
    long device = group.register(directory);
    fileSystems.failing = 1;
    Future<Void> failed = group.after(device);
    assertThat(fileSystems.nextRound()).isEqualTo(1);
    Future<Void> later = group.after(device);
    fileSystems.gate.release();
    assertThatThrownBy(() -> await(failed)).hasRootCauseInstanceOf(IOException.class);

    assertThat(fileSystems.nextRound()).isEqualTo(2);
    fileSystems.gate.release();
    await(later);
    assertThat(later.succeeded()).isTrue();
  }

  @Test
  void eachFileSystemIsOpenedOnce() throws Exception {
    Path other = Files.createDirectory(directory.resolve("table"));
    long device = group.register(directory);
    assertThat(group.register(other)).isEqualTo(device);
    assertThat(group.register(directory)).isEqualTo(device);
    assertThat(fileSystems.opens.get()).isEqualTo(1);
    assertThat(fileSystems.closes.get()).isZero();
  }

  @Test
  void anUnknownDeviceFailsInsteadOfWaiting() {
    assertThat(group.after(-7).failed()).isTrue();
  }

  @Test
  void callersHearTheOutcomeOnTheirOwnContext() throws Exception {
    long device = group.register(directory);
    Context caller = vertx.getOrCreateContext();
    CompletableFuture<Boolean> onCaller = new CompletableFuture<>();
    caller.runOnContext(
        start ->
            group
                .after(device)
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
}
