package dev.lvg.http;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds what a peer can hold on one event loop's API server: a connection that sends no complete
 * request head in time (silence, bytes that are not HTTP, a head sent a byte at a time) is closed;
 * a request whose body stalls is answered 408 and its connection closed; connections past the cap
 * are closed as they open. A scan once a second checks every connection, so a deadline holds to
 * within a second and costs nothing per request. Its maps belong to one event loop; only the count
 * of open connections is shared.
 */
public final class ConnectionGuard {
  private static final Logger LOG = LoggerFactory.getLogger(ConnectionGuard.class);
  private static final long SCAN_MILLIS = 1000;

  /**
   * What a peer gets: a new connection sends a complete request head within {@code
   * headTimeoutMillis}, a kept-alive one its next within {@code idleTimeoutMillis}, a request its
   * body within {@code bodyTimeoutMillis}; at most {@code maxConnections} are open at once.
   */
  public record Limits(
      long headTimeoutMillis, long idleTimeoutMillis, long bodyTimeoutMillis, int maxConnections) {}

  private final Limits limits;
  private final AtomicInteger open;
  private final AtomicInteger busyGuards;
  private final Map<HttpConnection, Peer> peers = new HashMap<>();
  private Vertx vertx;
  private long scanner = -1;
  private long refusedSinceLog;

  /** Whether this guard, draining, has counted itself off {@code busyGuards}. */
  private boolean countedOff;

  /** The state of one connection: the request it serves, and since when. */
  private static final class Peer {
    HttpServerRequest current;
    long since;
    long served;

    Peer(long since) {
      this.since = since;
    }
  }

  /**
   * {@code open} is the count of open API connections and {@code busyGuards} the count of guards
   * whose event loop still has requests in progress in a drain, both shared by every event loop's
   * guard.
   */
  public ConnectionGuard(Limits limits, AtomicInteger open, AtomicInteger busyGuards) {
    this.limits = limits;
    this.open = open;
    this.busyGuards = busyGuards;
  }

  /** Starts the scan on the calling event loop. */
  public void start(Vertx vertx) {
    this.vertx = vertx;
    busyGuards.incrementAndGet();
    scanner = vertx.setPeriodic(SCAN_MILLIS, id -> scan(System.currentTimeMillis()));
  }

  public void stop() {
    if (scanner >= 0) {
      vertx.cancelTimer(scanner);
    }
  }

  /** A connection opened: admitted and watched, or closed at once when the cap is reached. */
  public void connected(HttpConnection connection) {
    if (open.incrementAndGet() > limits.maxConnections()) {
      open.decrementAndGet();
      if (refusedSinceLog++ == 0) {
        LOG.warn(
            "refusing API connections: {} are open (LVG_HTTP_MAX_CONNECTIONS)",
            limits.maxConnections());
      }
      connection.close();
      return;
    }
    HttpVersionGuard.install(connection);
    peers.put(connection, new Peer(System.currentTimeMillis()));
    connection.closeHandler(
        closed -> {
          peers.remove(connection);
          open.decrementAndGet();
        });
  }

  /** A request head arrived complete on a watched connection. */
  public void requested(HttpServerRequest request) {
    if (request.version() == HttpVersion.HTTP_2) {
      // Streams are multiplexed: HTTP/2 (over TLS) bounds idle connections and stalled streams
      // itself, and one stream's answer says nothing about the others.
      peers.remove(request.connection());
      return;
    }
    Peer peer = peers.get(request.connection());
    if (peer != null) {
      peer.current = request;
      peer.since = System.currentTimeMillis();
      peer.served++;
    }
  }

  /**
   * Completes once no request is in progress on any event loop (its answer sent or its connection
   * gone), or when {@code graceMillis} have passed; checked every 50 ms on the calling event loop.
   * An event loop done with its own requests waits for the others: meanwhile its connections stay
   * open, so a client sending on one gets 503 code 17, not a connection closed under it.
   */
  public Future<Void> idle(long graceMillis) {
    Promise<Void> done = Promise.promise();
    long deadline = System.currentTimeMillis() + graceMillis;
    awaitIdle(done, deadline);
    return done.future();
  }

  private void awaitIdle(Promise<Void> done, long deadline) {
    if (!countedOff && busy() == 0) {
      countOff();
    }
    if (countedOff && busyGuards.get() <= 0) {
      done.complete();
    } else if (System.currentTimeMillis() >= deadline) {
      if (!countedOff) {
        LOG.warn("shutdown grace over with {} requests still in progress", busy());
        countOff();
      }
      done.complete();
    } else {
      vertx.setTimer(50, id -> awaitIdle(done, deadline));
    }
  }

  private void countOff() {
    countedOff = true;
    busyGuards.decrementAndGet();
  }

  /** Requests on this event loop not yet answered, on connections still open. */
  private long busy() {
    return peers.values().stream()
        .filter(
            peer ->
                peer.current != null
                    && !peer.current.response().ended()
                    && !peer.current.response().closed())
        .count();
  }

  private void scan(long now) {
    if (refusedSinceLog > 1) {
      LOG.warn("refused {} more API connections over the cap", refusedSinceLog - 1);
    }
    refusedSinceLog = 0;
    List<HttpConnection> stalled = new ArrayList<>();
    List<HttpServerRequest> slowBodies = new ArrayList<>();
    peers.forEach(
        (connection, peer) -> {
          HttpServerRequest request = peer.current;
          if (request != null && !request.response().ended() && !request.response().closed()) {
            if (!request.isEnded() && now - peer.since > limits.bodyTimeoutMillis()) {
              slowBodies.add(request);
            }
            return;
          }
          if (request != null) {
            peer.current = null;
            peer.since = now;
          }
          long allowed = peer.served == 0 ? limits.headTimeoutMillis() : limits.idleTimeoutMillis();
          if (now - peer.since > allowed) {
            stalled.add(connection);
          }
        });
    stalled.forEach(HttpConnection::close);
    for (HttpServerRequest request : slowBodies) {
      if (ErrorResponder.clientMistakeLogged()) {
        LOG.debug("{} {}: the body did not arrive in time", request.method(), request.path());
      }
      ErrorResponder.answer(
          request,
          ApiException.invalidInput(
              "the request body did not arrive within " + limits.bodyTimeoutMillis() + " ms"),
          408,
          true);
    }
  }
}
