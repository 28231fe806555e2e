package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * One endpoint's turn on its lease: its events in order, a page at a time, each sent once the one
 * before was accepted, for as long as they are accepted and the turn lasts (one timeout of the
 * lease's three; no event is started after it). Progress is recorded after each page, so a gateway
 * that dies mid-page sends that page's events again.
 *
 * <p>Each step starts the next from its own callback and the turn ends by completing one promise,
 * so a turn of any length holds no chain of futures (completing a chain of thousands of composed
 * futures overflows the stack).
 */
final class WebhookTurn {
  /** What a turn reads and records through the endpoint's lease. */
  interface Lease {
    /** A page of the endpoint's events after {@code position}. */
    Future<FeedLog.Page> events(long position);

    /** Delivered through {@code position}: the lease given back, the attempts reset. */
    Future<Void> delivered(long position);

    /** Done through {@code position}, the lease kept: true while it is still this gateway's. */
    Future<Boolean> hold(long position);

    /** The endpoint disabled, for {@code reason}. */
    Future<Void> disable(String reason);

    /** The event at {@code position} refused after {@code attempts} earlier tries. */
    Future<Void> refused(long position, int attempts, WebhookSender.Answer answer);

    /** Counts one delivery by how it ended. */
    void count(String outcome);

    /** Whether the gateway is draining, so no page is started. */
    boolean draining();
  }

  private final WebhookEndpoint endpoint;
  private final Lease lease;
  private final WebhookSender sender;
  private final long until;
  private final Promise<Void> done = Promise.promise();

  /** Where the endpoint's events go, judged once for this turn. */
  private Future<WebhookTargets.Target> target;

  /** A turn that sends no event after {@code until} (epoch milliseconds). */
  WebhookTurn(WebhookEndpoint endpoint, Lease lease, WebhookSender sender, long until) {
    this.endpoint = endpoint;
    this.lease = lease;
    this.sender = sender;
    this.until = until;
  }

  /** Runs the turn from where the endpoint was delivered through. */
  Future<Void> start() {
    step(() -> page(endpoint.deliveredThrough(), endpoint.attempts()));
    return done.future();
  }

  /** Runs one step; a step that throws ends the turn with its failure. */
  private void step(Runnable step) {
    try {
      step.run();
    } catch (RuntimeException failure) {
      done.tryFail(failure);
    }
  }

  /** Ends the turn once {@code last}, the turn's last statement, has run. */
  private void end(Future<Void> last) {
    last.onComplete(
        ended -> {
          if (ended.succeeded()) {
            done.tryComplete();
          } else {
            done.tryFail(ended.cause());
          }
        });
  }

  private void page(long after, int attempts) {
    lease
        .events(after)
        .onComplete(
            read ->
                step(
                    () -> {
                      if (read.succeeded()) {
                        FeedLog.Page page = read.result();
                        if (page.events().isEmpty()) {
                          end(lease.delivered(page.next().position()));
                        } else {
                          send(page, 0, after, attempts);
                        }
                      } else if (read.cause() instanceof ApiException gone
                          && gone.errorCode() == ErrorCode.CURSOR_GONE) {
                        lease.count("disabled");
                        end(
                            lease.disable(
                                "events expired before they were delivered: " + gone.getMessage()));
                      } else {
                        done.tryFail(read.cause());
                      }
                    }));
  }

  /** Sends event {@code i} of {@code page}; every event before it was accepted. */
  private void send(FeedLog.Page page, int i, long accepted, int attempts) {
    if (i == page.events().size()) {
      long through = page.next().position();
      boolean more =
          page.events().size() == WebhookDispatcher.EVENTS_PER_PAGE
              && System.currentTimeMillis() < until
              && !lease.draining();
      if (!more) {
        end(lease.delivered(through));
        return;
      }
      lease
          .hold(through)
          .onComplete(
              held ->
                  step(
                      () -> {
                        if (held.failed()) {
                          done.tryFail(held.cause());
                        } else if (held.result()) {
                          page(through, 0);
                        } else {
                          done.tryComplete(); // the lease was lost: another gateway goes on
                        }
                      }));
      return;
    }
    if (i > 0 && System.currentTimeMillis() >= until) {
      // The turn is over: it ends at most one timeout after its own, within the lease's three.
      end(lease.delivered(accepted));
      return;
    }
    ObjectNode event = page.events().get(i);
    long position = Long.parseLong(event.get("sequence").asText());
    if (target == null) {
      target = sender.target(endpoint);
    }
    target
        .compose(judged -> sender.post(judged, endpoint.secrets(), event))
        .onComplete(
            sent ->
                step(
                    () -> {
                      if (sent.failed()) {
                        done.tryFail(sent.cause());
                        return;
                      }
                      WebhookSender.Answer answer = sent.result();
                      if (answer.status() >= 200 && answer.status() < 300) {
                        lease.count("delivered");
                        send(page, i + 1, position, 0);
                        return;
                      }
                      Future<?> progress = i == 0 ? Future.succeededFuture() : lease.hold(accepted);
                      end(progress.compose(recorded -> lease.refused(position, attempts, answer)));
                    }));
  }
}
