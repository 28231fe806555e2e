package dev.lvg.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Where a server's Java code spent its time, from the execution samples of a JFR recording: the
 * share of samples by thread group, by library, and the methods most often running. A sample counts
 * for the library of the running frame, or, when that frame is the JDK's own (a map, a string, a
 * lock), for the library of the nearest caller that is not, so a {@code HashMap} lookup inside
 * Vert.x counts for Vert.x. JFR samples threads that run Java code; time in system calls and in the
 * JIT compiler shows in the process's per-thread CPU instead. {@code ProfileSummary FILE.jfr [TOP]}
 * prints Markdown.
 */
public final class ProfileSummary {
  private static final String JDK = "the JDK's libraries";

  /** Libraries by class-name prefix, the more specific first. */
  private static final List<Map.Entry<String, String>> LIBRARIES =
      List.of(
          Map.entry("dev.lvg.", "the gateway's own code"),
          Map.entry("io.netty.", "network I/O (Netty, NIO)"),
          Map.entry("sun.nio.", "network I/O (Netty, NIO)"),
          Map.entry("java.nio.", "network I/O (Netty, NIO)"),
          Map.entry("io.vertx.pgclient.", "PostgreSQL client"),
          Map.entry("io.vertx.sqlclient.", "PostgreSQL client"),
          Map.entry("io.vertx.ext.web.", "Vert.x Web (routing, handlers)"),
          Map.entry("io.vertx.", "Vert.x core (HTTP, futures, contexts)"),
          Map.entry("com.fasterxml.jackson.", "Jackson"),
          Map.entry("io.micrometer.", "Micrometer"),
          Map.entry("ch.qos.logback.", "logging"),
          Map.entry("org.slf4j.", "logging"),
          Map.entry("java.", JDK),
          Map.entry("jdk.", JDK),
          Map.entry("sun.", JDK));

  private ProfileSummary() {}

  /**
   * One execution sample: the sampled thread's name, the running frame's class and method, and the
   * class the sample counts for (the running one, or its nearest caller outside the JDK).
   */
  record Sample(String thread, String className, String method, String owner) {
    Sample(String thread, String className, String method) {
      this(thread, className, method, className);
    }
  }

  /** Counts of samples by thread group, by library and by running method. */
  record Summary(
      int samples,
      Map<String, Integer> byThreadGroup,
      Map<String, Integer> byLibrary,
      Map<String, Integer> byMethod) {
    double share(int count) {
      return samples == 0 ? 0 : 100.0 * count / samples;
    }
  }

  public static void main(String[] args) throws IOException {
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    Instant since = args.length > 2 ? Instant.ofEpochMilli(Long.parseLong(args[2])) : Instant.MIN;
    System.out.print(markdown(summarize(read(Path.of(args[0]), since)), top));
  }

  static List<Sample> read(Path recording, Instant since) throws IOException {
    return RecordingFile.readAllEvents(recording).stream()
        .filter(event -> event.getEventType().getName().equals("jdk.ExecutionSample"))
        .filter(event -> !event.getStartTime().isBefore(since))
        .filter(
            event -> event.getStackTrace() != null && !event.getStackTrace().getFrames().isEmpty())
        .map(
            event -> {
              List<RecordedFrame> frames = event.getStackTrace().getFrames();
              RecordedFrame running = frames.get(0);
              RecordedThread thread = event.getThread("sampledThread");
              return new Sample(
                  thread == null || thread.getJavaName() == null ? "" : thread.getJavaName(),
                  running.getMethod().getType().getName(),
                  running.getMethod().getName(),
                  owner(frames));
            })
        .toList();
  }

  /** The class of the nearest frame outside the JDK's own libraries, or the running one's. */
  static String owner(List<RecordedFrame> frames) {
    return frames.stream()
        .map(frame -> frame.getMethod().getType().getName())
        .filter(className -> !library(className).equals(JDK))
        .findFirst()
        .orElse(frames.get(0).getMethod().getType().getName());
  }

  static Summary summarize(List<Sample> samples) {
    Map<String, Integer> groups = new TreeMap<>();
    Map<String, Integer> libraries = new TreeMap<>();
    Map<String, Integer> methods = new TreeMap<>();
    for (Sample sample : samples) {
      groups.merge(threadGroup(sample.thread()), 1, Integer::sum);
      libraries.merge(library(sample.owner()), 1, Integer::sum);
      methods.merge(sample.className() + "." + sample.method(), 1, Integer::sum);
    }
    return new Summary(samples.size(), groups, libraries, methods);
  }

  static String threadGroup(String thread) {
    if (thread.startsWith("vert.x-eventloop-thread")) {
      return "event loops";
    }
    if (thread.startsWith("vert.x-worker-thread")
        || thread.startsWith("vert.x-internal-blocking")) {
      return "worker threads";
    }
    return "other threads";
  }

  static String library(String className) {
    return LIBRARIES.stream()
        .filter(library -> className.startsWith(library.getKey()))
        .map(Map.Entry::getValue)
        .findFirst()
        .orElse("other libraries");
  }

  static String markdown(Summary summary, int top) {
    StringBuilder text = new StringBuilder();
    text.append(summary.samples()).append(" execution samples: ");
    text.append(
        String.join(
            ", ",
            largest(summary.byThreadGroup(), Integer.MAX_VALUE).stream()
                .map(group -> group.getKey() + " " + percent(summary, group.getValue()))
                .toList()));
    text.append(".\n\n| library (JDK code counts for its caller) | samples |\n|---|---|\n");
    for (Map.Entry<String, Integer> library : largest(summary.byLibrary(), Integer.MAX_VALUE)) {
      text.append("| ")
          .append(library.getKey())
          .append(" | ")
          .append(percent(summary, library.getValue()))
          .append(" |\n");
    }
    text.append("\n| most often running | samples |\n|---|---|\n");
    for (Map.Entry<String, Integer> method : largest(summary.byMethod(), top)) {
      text.append("| `")
          .append(method.getKey())
          .append("` | ")
          .append(percent(summary, method.getValue()))
          .append(" |\n");
    }
    return text.toString();
  }

  private static String percent(Summary summary, int count) {
    return String.format("%.1f%%", summary.share(count));
  }

  /** The largest counts first (ties by name), at most {@code limit} of them. */
  static List<Map.Entry<String, Integer>> largest(Map<String, Integer> counts, int limit) {
    return counts.entrySet().stream()
        .sorted(
            Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder())
                .thenComparing(Map.Entry.comparingByKey()))
        .limit(limit)
        .toList();
  }
}
