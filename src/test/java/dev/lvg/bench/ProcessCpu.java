package dev.lvg.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

/**
 * CPU time of the server under test and of PostgreSQL, read from {@code /proc}, so a benchmark can
 * report CPU per request. The server's pid comes from {@code -Dlvg.server.pid}, PostgreSQL's
 * postmaster from {@code -Dlvg.postgres.pid} (its exited backends count through the postmaster's
 * children time, its live ones one by one). Missing pids read as zero.
 */
final class ProcessCpu {
  private static final double TICKS_PER_MILLI = 100 / 1000.0;
  private static final int IDLE = 3;
  private static final int IOWAIT = 4;
  private static final int STEAL = 7;

  private ProcessCpu() {}

  /**
   * CPU milliseconds of the server, of PostgreSQL, of this process (the load generator), the
   * machine's idle milliseconds (all cores, waiting for I/O included), and the milliseconds the
   * hypervisor gave this machine's cores to someone else (steal): a virtual machine whose host is
   * busy runs slower for a while, whatever runs on it.
   */
  record Sample(
      double serverMillis,
      double postgresMillis,
      double generatorMillis,
      double idleMillis,
      double stolenMillis) {
    Sample minus(Sample earlier) {
      return earlier == null
          ? this
          : new Sample(
              serverMillis - earlier.serverMillis,
              postgresMillis - earlier.postgresMillis,
              generatorMillis - earlier.generatorMillis,
              idleMillis - earlier.idleMillis,
              stolenMillis - earlier.stolenMillis);
    }
  }

  static Sample sample() {
    long[] machine = machineTicks();
    return new Sample(
        ticks(pid("lvg.server.pid"), false) / TICKS_PER_MILLI,
        postgresTicks() / TICKS_PER_MILLI,
        ticks(ProcessHandle.current().pid(), false) / TICKS_PER_MILLI,
        (machine[IDLE] + machine[IOWAIT]) / TICKS_PER_MILLI,
        machine[STEAL] / TICKS_PER_MILLI);
  }

  /**
   * The ticks of all cores together, from the first line of /proc/stat, read once: user, nice,
   * system, idle, iowait, irq, softirq, steal; zeros when it cannot be read.
   */
  private static long[] machineTicks() {
    long[] ticks = new long[STEAL + 1];
    try {
      String[] cpu = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
      for (int i = 0; i < ticks.length; i++) {
        ticks[i] = Long.parseLong(cpu[i + 1]);
      }
      return ticks;
    } catch (IOException | RuntimeException unreadable) {
      return new long[STEAL + 1];
    }
  }

  private static long pid(String property) {
    String value = System.getProperty(property);
    return value == null || value.isBlank() ? -1 : Long.parseLong(value.trim());
  }

  private static double postgresTicks() {
    long postmaster = pid("lvg.postgres.pid");
    if (postmaster < 0) {
      return 0;
    }
    double total = ticks(postmaster, true);
    try (Stream<Path> tasks = Files.list(Path.of("/proc"))) {
      for (Path task : (Iterable<Path>) tasks::iterator) {
        String name = task.getFileName().toString();
        if (name.chars().allMatch(Character::isDigit) && parent(task) == postmaster) {
          total += ticks(Long.parseLong(name), false);
        }
      }
    } catch (IOException e) {
      return total;
    }
    return total;
  }

  private static String[] stat(Path process) throws IOException {
    String text = Files.readString(process.resolve("stat"));
    return text.substring(text.lastIndexOf(')') + 2).split(" ");
  }

  private static long parent(Path process) {
    try {
      return Long.parseLong(stat(process)[1]);
    } catch (IOException | RuntimeException gone) {
      return -1;
    }
  }

  /** utime + stime (fields 14, 15), and with {@code children} cutime + cstime (16, 17). */
  private static double ticks(long pid, boolean children) {
    if (pid < 0) {
      return 0;
    }
    try {
      String[] fields = stat(Path.of("/proc", Long.toString(pid)));
      double ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
      if (children) {
        ticks += Long.parseLong(fields[13]) + Long.parseLong(fields[14]);
      }
      return ticks;
    } catch (IOException | RuntimeException gone) {
      return 0;
    }
  }

  static long serverRssMib() {
    long pid = pid("lvg.server.pid");
    if (pid < 0) {
      return 0;
    }
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
              .filter(line -> line.startsWith("VmRSS:"))
              .mapToLong(line -> Long.parseLong(line.replaceAll("[^0-9]", "")))
              .findFirst()
              .orElse(0)
          / 1024;
    } catch (IOException e) {
      return 0;
    }
  }
}
