package dev.lvg.platform;

import io.vertx.core.Future;

/**
 * A module that keeps the platform it was started on, for its routes: a feature overrides {@link
 * #started} for what it starts once, and {@link #routes} for what it serves.
 */
public abstract class Feature implements Module {
  private final String name;
  private Platform platform;

  protected Feature(String name) {
    this.name = name;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final Future<?> start(Platform platform) {
    this.platform = platform;
    return started(platform);
  }

  /** What the feature starts once, on {@code platform}; nothing unless overridden. */
  protected Future<?> started(Platform platform) {
    return Future.succeededFuture();
  }

  /** The platform the feature was started on. */
  protected final Platform platform() {
    return platform;
  }
}
