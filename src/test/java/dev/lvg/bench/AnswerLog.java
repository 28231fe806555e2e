package dev.lvg.bench;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;

/**
 * Every answer of a measured run, for a picture of latency over time: one line per answer with the
 * second its request was due (from the first request), its latency in milliseconds and its status.
 * Kept in memory during the run, written after it. The lanes of a closed loop record from their own
 * event loops, so adding is synchronized.
 */
final class AnswerLog {
  private final Path file;
  private long[] scheduled = new long[1 << 16];
  private long[] latencies = new long[1 << 16];
  private int[] statuses = new int[1 << 16];
  private int count;

  private AnswerLog(Path file) {
    this.file = file;
  }

  /** A log written to the file the system property {@code name} names, or null without one. */
  static AnswerLog fromProperty(String name) {
    String file = System.getProperty(name);
    return file == null ? null : new AnswerLog(Path.of(file));
  }

  synchronized void add(long scheduledNanos, long latencyNanos, int status) {
    if (count == scheduled.length) {
      scheduled = Arrays.copyOf(scheduled, count * 2);
      latencies = Arrays.copyOf(latencies, count * 2);
      statuses = Arrays.copyOf(statuses, count * 2);
    }
    scheduled[count] = scheduledNanos;
    latencies[count] = latencyNanos;
    statuses[count] = status;
    count++;
  }

  synchronized void clear() {
    count = 0;
  }

  synchronized void write() {
    long first = Long.MAX_VALUE;
    for (int i = 0; i < count; i++) {
      first = Math.min(first, scheduled[i]);
    }
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (int i = 0; i < count; i++) {
        out.write(
            String.format(
                "%.4f %.3f %d%n", (scheduled[i] - first) / 1e9, latencies[i] / 1e6, statuses[i]));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
