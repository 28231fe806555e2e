package dev.lvg.platform;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's background work, each piece named: run periodically, never two runs of one job at
 * once, each run counted by how it ended ({@code lvg_job_runs{job,outcome}}), and stopped together
 * on drain, last started first, each given the time to finish the run in progress.
 */
public final class Jobs {
  private static final Logger LOG = LoggerFactory.getLogger(Jobs.class);

  private final Vertx vertx;
  private final Context context;
  private final MeterRegistry registry;
  private final List<Job> jobs = new CopyOnWriteArrayList<>();
  private volatile boolean stopping;

  public Jobs(Vertx vertx, MeterRegistry registry) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.registry = registry;
  }

  /**
   * Runs {@code run} {@code firstMillis} after now, then every {@code everyMillis}, every run on
   * the jobs' one event loop; a tick that comes while the last run is still in progress is skipped
   * (and counted as skipped).
   */
  public void every(String name, long firstMillis, long everyMillis, Supplier<Future<?>> run) {
    Job job = new Job(name, run);
    jobs.add(job);
    context.runOnContext(
        now ->
            job.first =
                vertx.setTimer(
                    Math.max(1, firstMillis),
                    fired -> {
                      if (!job.stopped.get()) {
                        job.periodic = vertx.setPeriodic(Math.max(1, everyMillis), t -> job.run());
                        job.run();
                      }
                    }));
  }

  /** Runs {@code tick}, quick work with nothing to wait for, every {@code everyMillis}. */
  public void tick(String name, long everyMillis, Runnable tick) {
    every(
        name,
        everyMillis,
        everyMillis,
        () -> {
          tick.run();
          return Future.succeededFuture();
        });
  }

  /**
   * Whether the jobs are being stopped: a run that does many steps checks it between them, so that
   * it ends within the grace it is given.
   */
  public boolean stopping() {
    return stopping;
  }

  /** The names of the jobs running, in the order they started. */
  public List<String> names() {
    List<String> names = new ArrayList<>();
    jobs.forEach(job -> names.add(job.name));
    return names;
  }

  /**
   * Stops every job, the last started first: no run starts after this, and each run in progress has
   * up to {@code graceMillis} to end.
   */
  public Future<Void> stop(long graceMillis) {
    stopping = true;
    Future<Void> stopped = Future.succeededFuture();
    List<Job> reversed = new ArrayList<>(jobs);
    java.util.Collections.reverse(reversed);
    for (Job job : reversed) {
      stopped = stopped.compose(previous -> job.stop(graceMillis));
    }
    jobs.clear();
    return stopped;
  }

  private final class Job {
    final String name;
    final Supplier<Future<?>> body;
    final AtomicBoolean stopped = new AtomicBoolean();
    final AtomicReference<Future<?>> current = new AtomicReference<>();
    final Counter succeeded;
    final Counter failed;
    final Counter skipped;
    volatile long first = -1;
    volatile long periodic = -1;

    Job(String name, Supplier<Future<?>> body) {
      this.name = name;
      this.body = body;
      this.succeeded = counter(name, "succeeded");
      this.failed = counter(name, "failed");
      this.skipped = counter(name, "skipped");
    }

    void run() {
      if (stopped.get()) {
        return;
      }
      Future<?> last = current.get();
      if (last != null && !last.isComplete()) {
        skipped.increment();
        return;
      }
      Future<?> run;
      try {
        run = body.get();
      } catch (RuntimeException e) {
        run = Future.failedFuture(e);
      }
      current.set(run);
      run.onComplete(
          ended -> {
            if (ended.succeeded()) {
              succeeded.increment();
            } else {
              failed.increment();
              LOG.debug("job {} failed: {}", name, ended.cause().toString());
            }
          });
    }

    /**
     * Stops it on its own context, so that a run in progress there (on the event loop, while the
     * stop was asked from elsewhere) has been started and counted when this looks at it.
     */
    Future<Void> stop(long graceMillis) {
      stopped.set(true);
      Promise<Void> ended = Promise.promise();
      context.runOnContext(
          now -> {
            vertx.cancelTimer(first);
            vertx.cancelTimer(periodic);
            Future<?> last = current.get();
            if (last == null || last.isComplete()) {
              ended.tryComplete();
              return;
            }
            long timer =
                vertx.setTimer(
                    Math.max(1, graceMillis),
                    late -> {
                      if (ended.tryComplete()) {
                        LOG.warn("job {} did not end within {} ms of the stop", name, graceMillis);
                      }
                    });
            last.onComplete(
                done -> {
                  vertx.cancelTimer(timer);
                  ended.tryComplete();
                });
          });
      return ended.future();
    }
  }

  private Counter counter(String job, String outcome) {
    return Counter.builder("lvg_job_runs")
        .tag("job", job)
        .tag("outcome", outcome)
        .description("Runs of the gateway's background jobs, by how they ended")
        .register(registry);
  }
}
