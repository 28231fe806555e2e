package dev.lvg.metrics;

import dev.lvg.http.AccessLog;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Latency of every API request by method, route template and status, as a Prometheus histogram with
 * fixed buckets. Timers are created once per label set and then only looked up; the label sets are
 * bounded by the routes the gateway mounts and the statuses it answers.
 */
public final class HttpMetrics {
  /** The status label of a request whose client went away before its answer. */
  static final String CLOSED = "closed";

  private static final Duration[] BUCKETS = {
    Duration.ofMillis(1),
    Duration.ofMillis(2),
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10)
  };

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, Timer> timers = new ConcurrentHashMap<>();

  public HttpMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** A handler that times the requests of one route, from here to the end of the answer. */
  public PlatformHandler timing(String method, String route) {
    return new Timing(method, route);
  }

  /** Runs first on its route, before the body is read, so the body's time counts too. */
  private final class Timing implements PlatformHandler {
    private final String method;
    private final String route;

    Timing(String method, String route) {
      this.method = method;
      this.route = route;
    }

    @Override
    public void handle(RoutingContext ctx) {
      long start = System.nanoTime();
      ctx.put(AccessLog.ROUTE, route);
      ctx.addEndHandler(
          ended -> {
            String status =
                ctx.response().ended() ? Integer.toString(ctx.response().getStatusCode()) : CLOSED;
            timer(method, route, status).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
          });
      ctx.next();
    }
  }

  private Timer timer(String method, String route, String status) {
    return timers.computeIfAbsent(
        method + ' ' + route + ' ' + status,
        key ->
            Timer.builder("lvg_http_server_requests")
                .description("API requests by method, route template and status")
                .tag("method", method)
                .tag("route", route)
                .tag("status", status)
                .serviceLevelObjectives(BUCKETS)
                .register(registry));
  }
}
