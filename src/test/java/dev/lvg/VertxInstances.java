package dev.lvg;

import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Closing a Vert.x instance a test made for itself. */
public final class VertxInstances {
  /**
   * Vert.x gives its event-loop threads up to 10 s to stop once its pools and servers are closed,
   * so a close that is slow but sound can take longer than that on a loaded machine; this waits
   * three times as long before it calls the close hung.
   */
  private static final long CLOSE_SECONDS = 30;

  private VertxInstances() {}

  /**
   * Closes {@code vertx} and waits for it; a close that does not finish in time fails with every
   * thread's stack printed, so the test's output shows what held it.
   */
  public static void close(Vertx vertx) throws Exception {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(CLOSE_SECONDS, TimeUnit.SECONDS);
    } catch (TimeoutException hung) {
      for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
        System.err.println("thread " + thread.getKey().getName());
        for (StackTraceElement frame : thread.getValue()) {
          System.err.println("    at " + frame);
        }
      }
      throw hung;
    }
  }
}
