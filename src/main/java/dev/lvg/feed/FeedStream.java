package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Failures;
import dev.lvg.http.Futures;
import dev.lvg.operation.Right;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One live tail of a tenant's change feed, as Server-Sent Events: each event's {@code id:} is its
 * cursor and its {@code data:} the CloudEvent. It reads a page only when the feed's head is past
 * its cursor and its connection has room, so what it holds is one page and the connection's write
 * queue; a consumer that leaves the queue full longer than allowed is cut off with an event naming
 * the cursor to resume from.
 */
final class FeedStream {
  private static final Logger LOG = LoggerFactory.getLogger(FeedStream.class);
  static final int PAGE_SIZE = 100;

  private final FeedHub hub;
  private final RoutingContext ctx;
  private final HttpServerResponse response;
  private final Principal principal;
  private final Supplier<Future<Principal>> again;

  /** What it sends: replaced when the credential, authenticated again, may read something else. */
  private FeedFilter filter;

  private final String epoch;
  private long position;
  private boolean reading;
  private boolean closed;
  private long fullSince;
  private long lastWrite;
  private boolean authenticating;

  /**
   * A tail for {@code principal}, whose credential {@code again} authenticates anew (see {@link
   * FeedHub}).
   */
  FeedStream(
      FeedHub hub,
      RoutingContext ctx,
      Principal principal,
      Supplier<Future<Principal>> again,
      FeedFilter filter,
      String epoch,
      long position) {
    this.hub = hub;
    this.ctx = ctx;
    this.response = ctx.response();
    this.principal = principal;
    this.again = again;
    this.filter = filter;
    this.epoch = epoch;
    this.position = position;
  }

  Tenant tenant() {
    return principal.tenant();
  }

  Principal principal() {
    return principal;
  }

  /**
   * Authenticates the tail's credential again and ends the tail, naming why, when it no longer
   * grants reading this tenant's feed: {@code revoked} (the key is gone or the token no longer
   * valid), {@code deleted} (its tenant is), {@code disabled} (its tenant is), {@code forbidden}
   * (it no longer grants reading). A check that cannot be made is made again a second later.
   */
  void authenticateAgain() {
    if (closed || authenticating) {
      return;
    }
    authenticating = true;
    Futures.attempt(again::get)
        .onComplete(
            checked -> {
              authenticating = false;
              long now = System.currentTimeMillis();
              if (checked.succeeded()) {
                Principal current = checked.result();
                if (current == null) {
                  gone();
                } else if (current.tenant() == null
                    || current.tenant().id() != principal.tenant().id()
                    || (!current.may(Right.READ) && current.access().grants().isEmpty())) {
                  end("forbidden", "this credential no longer grants reading this feed", now);
                } else {
                  // Grants changed: from the next page on, only what they let it read.
                  filter = filter.readableBy(current.access());
                }
                return;
              }
              Failures.Failure failure = Failures.classify(checked.cause());
              if (failure.kind() != Failures.Kind.CLIENT) {
                hub.checkAgainLater();
              } else if (failure.error().errorCode() == ErrorCode.UNAUTHENTICATED) {
                end("revoked", failure.error().getMessage(), now);
              } else {
                // 403: the tenant is disabled, or (for a token) no longer known.
                hub.tenantExists(principal.tenant().id())
                    .onComplete(
                        exists -> {
                          long at = System.currentTimeMillis();
                          if (exists.succeeded() && !exists.result()) {
                            end("deleted", "this tenant was deleted", at);
                          } else {
                            end("disabled", failure.error().getMessage(), at);
                          }
                        });
              }
            });
  }

  /** The credential no longer resolves: its key was revoked, or its tenant deleted with it. */
  private void gone() {
    hub.tenantExists(principal.tenant().id())
        .onComplete(
            exists -> {
              long now = System.currentTimeMillis();
              if (exists.failed()) {
                hub.checkAgainLater();
              } else if (exists.result()) {
                end("revoked", "this credential was revoked", now);
              } else {
                end("deleted", "this tenant was deleted", now);
              }
            });
  }

  long position() {
    return position;
  }

  /** Sends the headers and joins the hub, which wakes it when the feed moves. */
  void open(long now) {
    response
        .setStatusCode(200)
        .setChunked(true)
        .putHeader("Content-Type", "text/event-stream; charset=utf-8")
        .putHeader("Cache-Control", "no-store")
        // Compressed, events would wait in the compressor's buffer instead of going out.
        .putHeader("Content-Encoding", "identity")
        .putHeader("X-Accel-Buffering", "no");
    response.closeHandler(gone -> closed());
    write("retry: 1000\n: from " + new FeedCursor(epoch, position) + "\n\n", now);
  }

  /** Called by the hub on each look at the heads: reads on, sends a heartbeat, or cuts off. */
  void tick(FeedLog.Head head, long now) {
    if (closed || reading) {
      return;
    }
    if (!head.epoch().equals(epoch)) {
      end("error", "the feed's history changed (a restore); read again from the start", now);
      return;
    }
    if (response.writeQueueFull()) {
      if (fullSince == 0) {
        fullSince = now;
      } else if (now - fullSince > hub.settings().slowConsumerMillis()) {
        hub.metrics().cutOff();
        end("cutoff", "this consumer read too slowly; resume from the cursor", now);
      }
      return;
    }
    fullSince = 0;
    if (head.last() > position) {
      read(head, now);
    } else if (now - lastWrite >= hub.settings().heartbeatMillis()) {
      write(": heartbeat\n\n", now);
    }
  }

  private void read(FeedLog.Head head, long now) {
    reading = true;
    hub.page(principal.tenant(), head, position, filter, PAGE_SIZE)
        .onComplete(
            outcome -> {
              reading = false;
              if (closed) {
                return;
              }
              long at = System.currentTimeMillis();
              if (outcome.failed()) {
                Failures.Failure failure = Failures.classify(outcome.cause());
                if (Failures.statementTimedOut(outcome.cause())) {
                  end("error", Failures.readTooLong().getMessage(), at);
                } else if (failure.kind() == Failures.Kind.CLIENT) {
                  end("error", failure.error().getMessage(), at);
                } else if (failure.kind() == Failures.Kind.INTERNAL) {
                  LOG.error(
                      "the live tail of tenant {} failed",
                      principal.tenant().name(),
                      outcome.cause());
                  end("error", "the gateway failed to read the feed; resume from the cursor", at);
                }
                // Shed or unavailable: the next tick tries again.
                return;
              }
              FeedLog.Page page = outcome.result();
              StringBuilder out = new StringBuilder();
              for (ObjectNode event : page.events()) {
                out.append("id: ")
                    .append(event.get("id").asText())
                    .append("\ndata: ")
                    .append(event.toString())
                    .append("\n\n");
              }
              position = page.next().position();
              hub.metrics().streamed(page.events().size());
              if (out.length() > 0) {
                write(out.toString(), at);
              }
              if (position < page.head() && !response.writeQueueFull()) {
                read(head, at);
              }
            });
  }

  /** Ends the stream with a last event naming where to resume. */
  void end(String event, String message, long now) {
    if (closed) {
      return;
    }
    String cursor = new FeedCursor(epoch, position).toString();
    write(
        "event: "
            + event
            + "\ndata: {\"continuation-token\":\""
            + cursor
            + "\",\"message\":"
            + com.fasterxml.jackson.databind.node.TextNode.valueOf(message)
            + "}\n\n",
        now);
    closed();
    response.end();
  }

  private void write(String text, long now) {
    lastWrite = now;
    response.write(Buffer.buffer(text));
  }

  private void closed() {
    if (!closed) {
      closed = true;
      hub.remove(this);
    }
  }
}
