package dev.lvg.overload;

import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorResponder;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Admission before the router: a request for an operation behind a {@link ConcurrencyLimiter} is
 * admitted, made to wait, or refused before Vert.x Web builds a routing context for it, so under
 * overload a refusal costs a look at its path, the limiter's decision and the 503, nothing else.
 *
 * <p>Operations are known by their route templates ({@code :name} matches one path segment), tried
 * in the order they were mounted, which is the order the router tries them. A path the gate does
 * not recognise goes to the router untouched, and for an operation spelled another way (say with a
 * trailing slash) the route's own {@link Admission} decides instead. An admitted request reaches
 * the router holding its permit: the router's first handler, {@link #claim}, ties the permit to the
 * end of the answer, and {@link Admission} lets the request through without asking again.
 *
 * <p>Confined to one event loop: each HTTP verticle has its own gate, over the shared limiters.
 */
public final class AdmissionGate {
  /** Hears every refusal the gate answers itself, for the meters and the access log. */
  public interface Refusals {
    void refused(HttpServerRequest request, String route, ApiException error, long nanos);
  }

  private record Operation(
      String method, String[] segments, String template, ConcurrencyLimiter limiter) {}

  private final List<Operation> operations = new ArrayList<>();
  private final Function<HttpServerRequest, String> requesterOf;
  private final Refusals refusals;
  private ConcurrencyLimiter.Permit handedOver;

  /** {@code requesterOf} names the requester without a database call (see the limiter). */
  public AdmissionGate(Function<HttpServerRequest, String> requesterOf, Refusals refusals) {
    this.requesterOf = requesterOf;
    this.refusals = refusals;
  }

  /** Puts {@code method template} behind {@code limiter}; null leaves it outside admission. */
  public void add(String method, String template, ConcurrencyLimiter limiter) {
    operations.add(new Operation(method, segments(template), template, limiter));
  }

  /** Decides on {@code request}, then (unless it was refused) hands it to {@code router}. */
  public void handle(HttpServerRequest request, Handler<HttpServerRequest> router) {
    Operation operation = match(request.method().name(), request.path());
    if (operation == null || operation.limiter() == null) {
      router.handle(request);
      return;
    }
    long start = System.nanoTime();
    Context context = Vertx.currentContext();
    ConcurrencyLimiter.Permit permit;
    try {
      permit =
          operation
              .limiter()
              .acquire(
                  requesterOf.apply(request),
                  new ConcurrencyLimiter.Waiter() {
                    @Override
                    public void admit(ConcurrencyLimiter.Permit granted) {
                      context.runOnContext(now -> proceed(request, granted, router));
                    }

                    @Override
                    public void refuse(ApiException error) {
                      context.runOnContext(now -> answerRefusal(request, operation, error, start));
                    }
                  });
    } catch (ApiException refused) {
      answerRefusal(request, operation, refused, start);
      return;
    }
    if (permit == null) {
      request.pause();
    } else {
      proceed(request, permit, router);
    }
  }

  /**
   * The router's first handler: a request the gate admitted gets its permit released when its
   * answer is sent or its client goes away.
   */
  public void claim(RoutingContext ctx) {
    ConcurrencyLimiter.Permit permit = handedOver;
    handedOver = null;
    if (permit != null) {
      ctx.put(Admission.ADMITTED, permit);
      ctx.addEndHandler(done -> permit.release());
    }
    ctx.next();
  }

  private void proceed(
      HttpServerRequest request,
      ConcurrencyLimiter.Permit permit,
      Handler<HttpServerRequest> router) {
    if (request.response().closed()) {
      permit.release();
      return;
    }
    handedOver = permit;
    try {
      router.handle(request);
    } finally {
      // The router runs its first handler at once; a permit still here was never claimed.
      if (handedOver != null) {
        handedOver = null;
        permit.release();
      }
    }
  }

  private void answerRefusal(
      HttpServerRequest request, Operation operation, ApiException error, long start) {
    if (request.response().ended() || request.response().closed()) {
      return;
    }
    ErrorResponder.answer(request, error, error.errorCode().status, false);
    refusals.refused(request, operation.template(), error, System.nanoTime() - start);
  }

  /** The template of the operation the gate takes {@code method path} for, or null. */
  String templateOf(String method, String path) {
    Operation operation = match(method, path);
    return operation == null ? null : operation.template();
  }

  /** The first operation whose method and template fit, or null. */
  private Operation match(String method, String path) {
    if (path == null) {
      return null;
    }
    for (Operation operation : operations) {
      if (operation.method().equals(method) && fits(operation.segments(), path)) {
        return operation;
      }
    }
    return null;
  }

  /** Whether {@code path} is {@code segments} exactly, a {@code :name} standing for one segment. */
  static boolean fits(String[] segments, String path) {
    int at = 0;
    for (String segment : segments) {
      if (at >= path.length() || path.charAt(at) != '/') {
        return false;
      }
      int end = path.indexOf('/', at + 1);
      if (end < 0) {
        end = path.length();
      }
      if (segment.startsWith(":")) {
        if (end == at + 1) {
          return false;
        }
      } else if (!path.regionMatches(at + 1, segment, 0, segment.length())
          || end - at - 1 != segment.length()) {
        return false;
      }
      at = end;
    }
    return at == path.length();
  }

  private static String[] segments(String template) {
    if (!template.startsWith("/") || template.endsWith("/")) {
      throw new IllegalArgumentException("a route template starts with / and does not end with it");
    }
    return template.substring(1).split("/", -1);
  }
}
