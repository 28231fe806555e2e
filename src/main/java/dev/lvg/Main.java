package dev.lvg;

import dev.lvg.admin.AdminCommand;
import dev.lvg.config.ConfigException;
import dev.lvg.config.GatewayConfig;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * {@code java -jar lance-version-gateway.jar}: start, serve until SIGTERM, stop cleanly; with
 * {@code tenants ...} or {@code keys ...}, run that admin command and exit; with {@code help},
 * print the usage and exit. Under a locale that cannot name files in UTF-8 it first runs itself
 * again under one that can ({@link Utf8Relaunch}).
 */
public final class Main {
  static final String USAGE =
      """
      Lance Version Gateway: the table-version API of the Lance Namespace REST spec, on PostgreSQL.

      usage: java -jar lance-version-gateway.jar               start the gateway (until SIGTERM)
             java -jar lance-version-gateway.jar help          this text (also --help, -h)
      """
          + AdminCommand.USAGE.replace("usage: ", "       ")
          + """


      Settings come from conf/gateway.properties (or the file in LVG_CONFIG), each overridden by
      an environment variable of the same name. The main ones:
        LVG_PORT (2333)              API port
        LVG_MANAGEMENT_PORT (2334)   health, metrics and the OpenAPI document
        LVG_DB_URL                   postgresql://user:pass@host:port/db; empty = embedded PostgreSQL
        LVG_DATA_DIR (./data)        embedded PostgreSQL's data, and the default storage root
        LVG_STORAGE_ROOT             file:///abs/path or s3://bucket/prefix
        LVG_BOOTSTRAP_TENANT, LVG_BOOTSTRAP_API_KEY   a first tenant and its key
        LVG_ADMIN_API_KEY            the admin API's key (environment only)
      Every setting is described in README.md (Configuration) and in conf/gateway.properties.
      """;

  private Main() {}

  /**
   * What the arguments ask for before anything starts: an exit status once the usage is printed
   * ({@code help}: 0 on {@code out}; anything unknown: 2 on {@code err}), or {@code null} to go on.
   */
  static Integer beforeStart(String[] args, PrintStream out, PrintStream err) {
    if (args.length == 0 || AdminCommand.isCommand(args)) {
      return null;
    }
    if (args.length == 1
        && (args[0].equals("help") || args[0].equals("--help") || args[0].equals("-h"))) {
      out.print(USAGE);
      return 0;
    }
    err.println("lance-version-gateway: unknown argument '" + args[0] + "'");
    err.print(USAGE);
    return 2;
  }

  public static void main(String[] args) {
    Integer exit = beforeStart(args, System.out, System.err);
    if (exit != null) {
      System.exit(exit);
      return;
    }
    Optional<List<String>> relaunch = Utf8Relaunch.command(args, System.getenv());
    if (relaunch.isPresent()) {
      try {
        System.exit(Utf8Relaunch.run(relaunch.get()));
      } catch (IOException | InterruptedException e) {
        System.err.println("lance-version-gateway: could not run again in UTF-8: " + e);
        System.exit(1);
      }
      return;
    }
    if (AdminCommand.isCommand(args)) {
      // Before anything logs: the command's answer alone goes to standard output.
      System.setProperty("LVG_LOG_TARGET", "System.err");
      try {
        System.exit(
            AdminCommand.run(args, GatewayConfig.load(System.getenv()), System.out, System.err));
      } catch (ConfigException e) {
        System.err.println("lance-version-gateway: configuration error: " + e.getMessage());
        System.exit(2);
      }
      return;
    }
    Gateway gateway;
    try {
      gateway = Gateway.start(GatewayConfig.load(System.getenv()));
    } catch (ConfigException e) {
      System.err.println("lance-version-gateway: configuration error: " + e.getMessage());
      System.exit(2);
      return;
    } catch (RuntimeException e) {
      System.err.println("lance-version-gateway: failed to start: " + e.getMessage());
      System.exit(1);
      return;
    }
    stopOnSignals(gateway);
  }

  /**
   * SIGTERM, SIGINT and SIGHUP drain the gateway and only then let the JVM exit (with 128 + the
   * signal's number, as a shell reports it). A JVM shutdown hook would not do: the embedded
   * PostgreSQL stops its server from a shutdown hook of its own, and the JVM runs all hooks at
   * once, so the database would go down under the requests still draining.
   */
  private static void stopOnSignals(Gateway gateway) {
    AtomicBoolean stopping = new AtomicBoolean();
    for (String name : List.of("TERM", "INT", "HUP")) {
      Signal.handle(
          new Signal(name),
          signal -> {
            if (stopping.compareAndSet(false, true)) {
              Thread stop =
                  new Thread(
                      () -> {
                        try {
                          gateway.close();
                        } finally {
                          // Exits even if the stop failed: a process that ignores SIGTERM is worse.
                          System.exit(128 + signal.getNumber());
                        }
                      },
                      "lvg-shutdown");
              stop.start();
            }
          });
    }
  }
}
