package dev.lvg.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import jdk.jfr.Recording;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProfileSummaryTest {
  @Test
  void samplesAreCountedByThreadGroupLibraryAndRunningMethod() {
    ProfileSummary.Summary summary =
        ProfileSummary.summarize(
            List.of(
                new ProfileSummary.Sample(
                    "vert.x-eventloop-thread-0", "io.netty.channel.unix.FileDescriptor", "writev"),
                new ProfileSummary.Sample(
                    "vert.x-eventloop-thread-1", "io.netty.channel.unix.FileDescriptor", "writev"),
                new ProfileSummary.Sample(
                    "vert.x-worker-thread-3", "dev.lvg.storage.LocalFiles", "link"),
                new ProfileSummary.Sample(
                    "vert.x-eventloop-thread-0", "io.vertx.pgclient.impl.codec.PgEncoder", "write"),
                new ProfileSummary.Sample("main", "com.example.Unknown", "run"),
                new ProfileSummary.Sample(
                    "vert.x-eventloop-thread-1",
                    "java.util.HashMap",
                    "getNode",
                    "io.vertx.ext.web.impl.RouterImpl")));

    assertThat(summary.samples()).isEqualTo(6);
    assertThat(summary.byThreadGroup())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of("event loops", 4, "worker threads", 1, "other threads", 1));
    assertThat(summary.byLibrary())
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "network I/O (Netty, NIO)", 2,
                "the gateway's own code", 1,
                "PostgreSQL client", 1,
                "other libraries", 1,
                "Vert.x Web (routing, handlers)", 1));
    assertThat(ProfileSummary.largest(summary.byMethod(), 1))
        .containsExactly(Map.entry("io.netty.channel.unix.FileDescriptor.writev", 2));
    assertThat(ProfileSummary.markdown(summary, 2))
        .contains(
            "6 execution samples: event loops 66.7%, other threads 16.7%, worker threads 16.7%.")
        .contains("| network I/O (Netty, NIO) | 33.3% |")
        .contains("| Vert.x Web (routing, handlers) | 16.7% |")
        .contains("| `io.netty.channel.unix.FileDescriptor.writev` | 33.3% |");
  }

  @Test
  void aRecordingOfABusyThreadChargesTheJdkCodeItRunsToItsCaller(@TempDir Path directory)
      throws Exception {
    Path file = directory.resolve("busy.jfr");
    Thread busy = new Thread(ProfileSummaryTest::sortForHalfASecond, "vert.x-eventloop-thread-7");
    try (Recording recording = new Recording()) {
      recording.enable("jdk.ExecutionSample").withPeriod(Duration.ofMillis(10));
      recording.start();
      busy.start();
      busy.join();
      recording.stop();
      recording.dump(file);
    }

    List<ProfileSummary.Sample> all = ProfileSummary.read(file, Instant.MIN);
    // The recording samples every thread of this JVM; the test runner's own threads may be caught
    // running nothing but the JDK's code, so only the busy thread's samples are weighed.
    ProfileSummary.Summary summary =
        ProfileSummary.summarize(
            all.stream().filter(sample -> sample.thread().equals(busy.getName())).toList());

    assertThat(summary.samples()).isGreaterThan(5);
    assertThat(summary.byThreadGroup()).containsOnlyKeys("event loops");
    assertThat(ProfileSummary.largest(summary.byMethod(), 1).get(0).getKey())
        .startsWith("java.util.");
    assertThat(summary.byLibrary()).containsOnlyKeys("the gateway's own code");
    assertThat(ProfileSummary.read(file, Instant.now())).isEmpty();
  }

  /** Busy for about half a second in the JDK's sort, called from this class. */
  private static void sortForHalfASecond() {
    long[] values = new Random(7).longs(20_000).toArray();
    long until = System.nanoTime() + 500_000_000L;
    while (System.nanoTime() < until) {
      Arrays.sort(values.clone());
    }
  }
}
