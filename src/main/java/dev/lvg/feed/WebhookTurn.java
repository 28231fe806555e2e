package dev.lvg.feed;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;

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
  private final WebhookDispatcher dispatcher;
  private final Row endpoint;
  private final Tenant tenant;
  private final String id;
  private final FeedLog.Filter filter;
  private final long until;
  private final Promise<Void> done = Promise.promise();

  /** Where the endpoint's events go, judged once for this turn. */
  private Future<WebhookTargets.Target> target;

  WebhookTurn(
      WebhookDispatcher dispatcher,
      Row endpoint,
      Tenant tenant,
      String id,
      FeedLog.Filter filter,
      long until) {
    this.dispatcher = dispatcher;
    this.endpoint = endpoint;
    this.tenant = tenant;
    this.id = id;
    this.filter = filter;
    this.until = until;
  }

  Future<Void> start(long after, int attempts) {
    step(() -> page(after, attempts));
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
    FeedLog.head(dispatcher.pool, tenant)
        .compose(
            head ->
                dispatcher.log.page(
                    dispatcher.pool,
                    tenant,
                    head,
                    after,
                    filter,
                    WebhookDispatcher.EVENTS_PER_PAGE))
        .onComplete(
            read ->
                step(
                    () -> {
                      if (read.succeeded()) {
                        FeedLog.Page page = read.result();
                        if (page.events().isEmpty()) {
                          end(
                              dispatcher.update(
                                  WebhookDispatcher.DELIVERED, tenant, id, page.next().position()));
                        } else {
                          send(page, 0, after, attempts);
                        }
                      } else if (read.cause() instanceof ApiException gone
                          && gone.errorCode() == ErrorCode.CURSOR_GONE) {
                        dispatcher.count("disabled");
                        end(
                            dispatcher.update(
                                WebhookDispatcher.DISABLE,
                                tenant,
                                id,
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
              && !dispatcher.draining.get();
      if (!more) {
        end(dispatcher.update(WebhookDispatcher.DELIVERED, tenant, id, through));
        return;
      }
      dispatcher
          .pool
          .preparedQuery(WebhookDispatcher.HOLD)
          .execute(Tuple.of(tenant.id(), id, dispatcher.owner, through))
          .onComplete(
              held ->
                  step(
                      () -> {
                        if (held.failed()) {
                          done.tryFail(held.cause());
                        } else if (held.result().rowCount() == 1) {
                          page(through, 0);
                        } else {
                          done.tryComplete(); // the lease was lost: another gateway goes on
                        }
                      }));
      return;
    }
    if (i > 0 && System.currentTimeMillis() >= until) {
      // The turn is over: it ends at most one timeout after its own, within the lease's three.
      end(dispatcher.update(WebhookDispatcher.DELIVERED, tenant, id, accepted));
      return;
    }
    ObjectNode event = page.events().get(i);
    long position = Long.parseLong(event.get("sequence").asText());
    if (target == null) {
      target = dispatcher.sender.target(endpoint);
    }
    target
        .compose(judged -> dispatcher.sender.post(judged, WebhookSender.secrets(endpoint), event))
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
                        dispatcher.count("delivered");
                        send(page, i + 1, position, 0);
                        return;
                      }
                      Future<Void> progress =
                          i == 0
                              ? Future.succeededFuture()
                              : dispatcher
                                  .pool
                                  .preparedQuery(WebhookDispatcher.HOLD)
                                  .execute(Tuple.of(tenant.id(), id, dispatcher.owner, accepted))
                                  .mapEmpty();
                      end(
                          progress.compose(
                              recorded ->
                                  dispatcher.settle(tenant, id, position, attempts, answer)));
                    }));
  }
}
