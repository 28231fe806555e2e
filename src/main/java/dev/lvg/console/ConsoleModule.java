package dev.lvg.console;

import dev.lvg.auth.Routes;
import dev.lvg.platform.Feature;
import dev.lvg.platform.Platform;
import io.vertx.core.Future;

/** The operator console: its page and files under {@code /console/}, read once at start. */
public final class ConsoleModule extends Feature {
  private Console console;

  public ConsoleModule() {
    super("console");
  }

  @Override
  protected Future<?> started(Platform platform) {
    return Console.load(platform.vertx()).onSuccess(loaded -> console = loaded);
  }

  @Override
  public void routes(Routes routes) {
    routes.pages(Console.PATH, console::serve);
  }
}
