package dev.lvg;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The JVM takes the encoding of file names from the locale it starts in, and no setting changes it
 * afterwards: under the POSIX locale (no {@code LANG}, as service managers, cron and many
 * containers start programs) it cannot name a file {@code café}. Started so, the gateway runs
 * itself again in a child JVM under {@code C.UTF-8}, with the same JVM options and arguments, its
 * output going where this one's goes; SIGTERM is passed on to the child, and its exit status
 * becomes this one's.
 */
final class Utf8Relaunch {
  /** Set in the child's environment, so that a child never relaunches itself again. */
  static final String RELAUNCHED = "LVG_RELAUNCHED_IN_UTF8";

  private Utf8Relaunch() {}

  /** True when this JVM names files in UTF-8. */
  static boolean namesFilesInUtf8() {
    String encoding = System.getProperty("sun.jnu.encoding");
    return encoding != null
        && Charset.isSupported(encoding)
        && Charset.forName(encoding).equals(StandardCharsets.UTF_8);
  }

  /** Logs the encoding file names are given in, with a warning when it is not UTF-8. */
  static void logEncoding(org.slf4j.Logger log) {
    String fileNames = System.getProperty("sun.jnu.encoding");
    if (namesFilesInUtf8()) {
      log.info("file names are encoded as {}", fileNames);
    } else {
      log.warn(
          "file names are encoded as {} (the locale's encoding): tables whose names it cannot"
              + " represent get 400 on the local file system; run with LANG=C.UTF-8",
          fileNames);
    }
  }

  /**
   * The command that runs this program again with {@code args}, or empty when this JVM names files
   * in UTF-8, is itself a relaunched child, or cannot tell its own executable.
   */
  static Optional<List<String>> command(String[] args, Map<String, String> environment) {
    Optional<String> java = ProcessHandle.current().info().command();
    if (namesFilesInUtf8() || environment.containsKey(RELAUNCHED) || java.isEmpty()) {
      return Optional.empty();
    }
    List<String> command = new ArrayList<>();
    command.add(java.get());
    command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.add(Main.class.getName());
    command.addAll(List.of(args));
    return Optional.of(command);
  }

  /**
   * Runs {@code command} under {@code C.UTF-8} until it exits; answers its exit status. A SIGTERM
   * to this JVM stops the child first (its own clean shutdown) and waits for it.
   */
  static int run(List<String> command) throws IOException, InterruptedException {
    System.err.println(
        "lance-version-gateway: the locale names files in "
            + System.getProperty("sun.jnu.encoding")
            + ", not UTF-8; running again under LC_ALL=C.UTF-8");
    ProcessBuilder builder = new ProcessBuilder(command).inheritIO();
    builder.environment().put("LC_ALL", "C.UTF-8");
    builder.environment().put(RELAUNCHED, "1");
    Process child = builder.start();
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  child.destroy();
                  try {
                    child.waitFor();
                  } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                  }
                },
                "lvg-relaunched-child"));
    return child.waitFor();
  }
}
