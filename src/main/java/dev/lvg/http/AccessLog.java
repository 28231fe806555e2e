package dev.lvg.http;

import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One line per API request on the logger {@code dev.lvg.access} when enabled: method, route
 * template, status, error code, tenant, duration and request id, as key-value pairs (fields of
 * their own in JSON logs). Never a header, a body or a credential.
 */
public final class AccessLog implements PlatformHandler {
  private static final Logger LOG = LoggerFactory.getLogger("dev.lvg.access");

  /** The key in the routing context under which each operation's route template is left. */
  public static final String ROUTE = "lvg.route";

  /** The key in the routing context under which the error responder leaves the error's code. */
  public static final String ERROR_CODE = "lvg.error-code";

  private final Function<RoutingContext, String> tenant;

  /** {@code tenant} names the tenant a request was authenticated as, or null. */
  public AccessLog(Function<RoutingContext, String> tenant) {
    this.tenant = tenant;
  }

  @Override
  public void handle(RoutingContext ctx) {
    long start = System.nanoTime();
    ctx.addEndHandler(ended -> log(ctx, (System.nanoTime() - start) / 1_000_000.0));
    ctx.next();
  }

  private void log(RoutingContext ctx, double millis) {
    String route = ctx.get(ROUTE);
    Integer code = ctx.get(ERROR_CODE);
    int status = ctx.response().ended() ? ctx.response().getStatusCode() : 0;
    write(ctx.request(), route, status, code, tenant.apply(ctx), millis);
  }

  private static void write(
      HttpServerRequest request,
      String route,
      int status,
      Integer code,
      String who,
      double millis) {
    String template = route == null ? "(none)" : route;
    LOG.atInfo()
        .addKeyValue("method", request.method().name())
        .addKeyValue("route", template)
        .addKeyValue("status", status == 0 ? "closed" : Integer.toString(status))
        .addKeyValue("code", code == null ? "-" : code.toString())
        .addKeyValue("tenant", who == null ? "-" : who)
        .addKeyValue("duration_ms", String.format("%.1f", millis))
        .addKeyValue("request_id", RequestIds.of(request))
        .log("{} {} {}", request.method().name(), template, status == 0 ? "closed" : status);
  }
}
