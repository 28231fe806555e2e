package dev.lvg;

import dev.lvg.admin.AdminCommand;
import dev.lvg.config.ConfigException;
import dev.lvg.config.GatewayConfig;

/**
 * {@code java -jar lance-version-gateway.jar}: start, serve until SIGTERM, stop cleanly; with
 * {@code tenants ...} or {@code keys ...}, run that admin command and exit.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) {
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
    Runtime.getRuntime().addShutdownHook(new Thread(gateway::close, "lvg-shutdown"));
  }
}
