package dev.lvg.feed;

import dev.lvg.config.WebhookSettings;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Pushes each tenant's change feed to its webhooks, from the database: every round it leases the
 * endpoints that have an event due (one lease per endpoint across all gateways, so one delivery is
 * in flight per endpoint, in position order), sends each its next event, and records the outcome in
 * the same row. A 2xx moves the endpoint on; any other answer, a timeout or a refused target is
 * tried again after a backoff that doubles (with jitter) or after the endpoint's Retry-After; after
 * the last attempt the event is dead-lettered and the endpoint moves on; a 410 disables the
 * endpoint. A gateway that dies mid-delivery leaves a lease that expires, and the event is sent
 * again: delivery is at least once, and {@code webhook-id} (the event's id) lets a receiver drop a
 * repeat.
 */
public final class WebhookDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(WebhookDispatcher.class);
  static final int ENDPOINTS_PER_ROUND = 32;
  static final int EVENTS_PER_PAGE = 100;

  /**
   * Up to $1 endpoints, of every tenant, whose next event may be due and whose lease is free: a
   * read without locks (on Citus, over every shard); each is then leased by {@link #LEASE}, which
   * checks again.
   */
  static final String DUE =
      """
      SELECT w.tenant_id, w.id FROM webhooks w JOIN feed_heads h ON h.tenant_id = w.tenant_id
      WHERE w.disabled_reason IS NULL AND w.next_attempt_at <= now()
        AND h.last_position > w.delivered_through
        AND (w.lease_until IS NULL OR w.lease_until < now())
      ORDER BY w.next_attempt_at LIMIT $1""";

  /**
   * Leases the endpoint ($1, $2) to owner $3 for $4 seconds if it is still due and its lease free;
   * of gateways racing for it, the one whose update lands first gets it, the others nothing. (Its
   * RETURNING names no now(): Citus refuses functions that are not immutable there.)
   */
  static final String LEASE =
      """
      UPDATE webhooks w SET lease_owner = $3, lease_until = now() + make_interval(secs => $4)
      WHERE w.tenant_id = $1 AND w.id = $2 AND w.disabled_reason IS NULL
        AND w.next_attempt_at <= now() AND (w.lease_until IS NULL OR w.lease_until < now())
      RETURNING w.tenant_id, w.id, w.url, w.event_types, w.grantee, w.secret,
                w.delivered_through, w.attempts,
                w.previous_secret AS previous, w.previous_secret_until AS previous_until,
                (SELECT t.name FROM tenants t WHERE t.id = w.tenant_id) AS tenant""";

  /** The endpoint ($1, $2) leased by $3 moved on to position $4. */
  static final String DELIVERED =
      """
      UPDATE webhooks SET delivered_through = $4, attempts = 0, next_attempt_at = now(),
                          last_error = NULL, lease_owner = NULL, lease_until = NULL
      WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3""";

  /** The endpoint ($1, $2) leased by $3, which it keeps, is done through position $4. */
  static final String HOLD =
      """
      UPDATE webhooks SET delivered_through = $4, attempts = 0, last_error = NULL
      WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3""";

  /** The endpoint ($1, $2) leased by $3 failed: attempt $4 failed with $5, next in $6 ms. */
  static final String FAILED =
      """
      UPDATE webhooks SET attempts = $4, last_error = $5,
                          next_attempt_at = now() + make_interval(secs => $6::double precision / 1000),
                          lease_owner = NULL, lease_until = NULL
      WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3""";

  /** The event at $4 of the endpoint ($1, $2) leased by $3 is given up after $5 attempts ($6). */
  static final String DEAD_LETTER =
      """
      WITH moved AS (
        UPDATE webhooks SET delivered_through = $4, attempts = 0, next_attempt_at = now(),
                            last_error = $6, lease_owner = NULL, lease_until = NULL
        WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3 RETURNING tenant_id)
      INSERT INTO webhook_dead_letters (tenant_id, webhook_id, position, attempts, last_error)
      SELECT tenant_id, $2, $4, $5, $6 FROM moved ON CONFLICT DO NOTHING""";

  /** The endpoint ($1, $2) leased by $3 is disabled, for reason $4. */
  static final String DISABLE =
      """
      UPDATE webhooks SET disabled_reason = $4, last_error = $4, lease_owner = NULL,
                          lease_until = NULL
      WHERE tenant_id = $1 AND id = $2 AND lease_owner = $3""";

  static final String LAG =
      """
      SELECT COALESCE(max(h.last_position - w.delivered_through), 0)
      FROM webhooks w JOIN feed_heads h ON h.tenant_id = w.tenant_id
      WHERE w.disabled_reason IS NULL""";

  private final Pool pool;
  private final FeedLog log;
  private final WebhookSettings settings;
  private final AtomicBoolean draining;
  private final WebhookSender sender;
  private final String owner = "gw-" + UUID.randomUUID();
  private final Feed feed;
  private boolean running;
  private long rounds;

  /** Rounds failed in a row; only the first failure and the recovery are logged. */
  private long failedInARow;

  public WebhookDispatcher(
      Vertx vertx, Pool pool, Feed feed, WebhookTargets targets, AtomicBoolean draining) {
    this.pool = pool;
    this.log = feed.log();
    this.settings = feed.settings().webhooks();
    this.draining = draining;
    this.feed = feed;
    this.sender = new WebhookSender(vertx, targets, settings.timeoutMillis());
  }

  /** One round: the endpoints due, each leased and given its turn; skipped while draining. */
  Future<Void> round() {
    if (running || draining.get()) {
      return Future.succeededFuture();
    }
    running = true;
    int leaseSeconds = Math.max(1, settings.timeoutMillis() / 1000 * 3);
    Future<Void> round =
        pool.preparedQuery(DUE)
            .execute(Tuple.of(ENDPOINTS_PER_ROUND))
            .compose(
                due -> {
                  List<Future<Void>> deliveries = new ArrayList<>();
                  for (Row endpoint : due) {
                    deliveries.add(
                        lease(endpoint, leaseSeconds)
                            .compose(
                                leased ->
                                    leased == null ? Future.succeededFuture() : deliver(leased))
                            .recover(this::logged));
                  }
                  return Future.join(deliveries).mapEmpty();
                });
    if (rounds++ % 25 == 0) {
      round =
          round
              .compose(done -> pool.query(LAG).execute())
              .map(
                  rows -> {
                    feed.webhookLag(rows.iterator().next().getLong(0));
                    return null;
                  });
    }
    return round.onComplete(
        done -> {
          running = false;
          if (done.failed() && !draining.get() && failedInARow++ == 0) {
            LOG.warn(
                "webhook rounds fail; retrying every {} ms: {}",
                settings.pollMillis(),
                done.cause().toString());
          } else if (done.succeeded() && failedInARow > 0) {
            LOG.info("webhook rounds work again after {} failed rounds", failedInARow);
            failedInARow = 0;
          }
        });
  }

  /** The endpoint's row once leased to this gateway, or null when another got it first. */
  private Future<Row> lease(Row endpoint, int leaseSeconds) {
    return pool.preparedQuery(LEASE)
        .execute(
            Tuple.of(
                endpoint.getLong("tenant_id"),
                endpoint.getString("id"),
                owner,
                (double) leaseSeconds))
        .map(rows -> rows.size() == 0 ? null : rows.iterator().next());
  }

  private Future<Void> logged(Throwable failure) {
    LOG.warn("a webhook delivery failed to record its outcome: {}", failure.toString());
    return Future.succeededFuture();
  }

  private Future<Void> deliver(Row leased) {
    WebhookEndpoint endpoint = WebhookEndpoint.of(leased, Instant.now());
    return new WebhookTurn(
            endpoint,
            new EndpointLease(endpoint),
            sender,
            System.currentTimeMillis() + settings.timeoutMillis())
        .start();
  }

  /** The endpoint's lease as this gateway holds it: its events read, its progress recorded. */
  private final class EndpointLease implements WebhookTurn.Lease {
    private final WebhookEndpoint endpoint;
    private final Tenant tenant;

    EndpointLease(WebhookEndpoint endpoint) {
      this.endpoint = endpoint;
      this.tenant = endpoint.tenant();
    }

    @Override
    public Future<FeedLog.Page> events(long position) {
      Future<FeedFilter> filter = endpoint.filter(pool);
      Future<FeedLog.Head> head = filter.compose(what -> FeedLog.head(pool, tenant));
      return head.compose(
          at -> log.page(pool, tenant, at, position, filter.result(), EVENTS_PER_PAGE));
    }

    @Override
    public Future<Void> delivered(long position) {
      return update(DELIVERED, position);
    }

    @Override
    public Future<Boolean> hold(long position) {
      return pool.preparedQuery(HOLD)
          .execute(Tuple.of(tenant.id(), endpoint.id(), owner, position))
          .map(rows -> rows.rowCount() == 1);
    }

    @Override
    public Future<Void> disable(String reason) {
      return update(DISABLE, reason);
    }

    /** Records a refused delivery of the event at {@code position}: disabled, dead or retried. */
    @Override
    public Future<Void> refused(long position, int attempts, WebhookSender.Answer answer) {
      if (answer.status() == 410) {
        count("disabled");
        return update(DISABLE, "the endpoint answered 410 Gone");
      }
      int tries = attempts + 1;
      if (tries >= settings.maxAttempts()) {
        count("dead_lettered");
        return pool.preparedQuery(DEAD_LETTER)
            .execute(
                Tuple.tuple()
                    .addLong(tenant.id())
                    .addString(endpoint.id())
                    .addString(owner)
                    .addLong(position)
                    .addInteger(tries)
                    .addString(answer.error()))
            .mapEmpty();
      }
      count("retried");
      long backoff =
          Math.min(
              settings.maxBackoffMillis(),
              (long) settings.backoffMillis() << Math.min(20, tries - 1));
      long delay = backoff / 2 + ThreadLocalRandom.current().nextLong(backoff / 2 + 1);
      if (answer.retryAfterMillis() != null) {
        // The endpoint's own word wins over the backoff, up to an hour.
        delay = Math.max(delay, Math.min(3_600_000L, answer.retryAfterMillis()));
      }
      return pool.preparedQuery(FAILED)
          .execute(
              Tuple.tuple()
                  .addLong(tenant.id())
                  .addString(endpoint.id())
                  .addString(owner)
                  .addInteger(tries)
                  .addString(answer.error())
                  .addLong(delay))
          .mapEmpty();
    }

    @Override
    public void count(String outcome) {
      feed.delivery(outcome);
    }

    @Override
    public boolean draining() {
      return draining.get();
    }

    private Future<Void> update(String sql, Object value) {
      return pool.preparedQuery(sql)
          .execute(Tuple.of(tenant.id(), endpoint.id(), owner, value))
          .mapEmpty();
    }
  }
}
