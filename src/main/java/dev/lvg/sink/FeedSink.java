package dev.lvg.sink;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.feed.FeedCursor;
import dev.lvg.feed.FeedFilter;
import dev.lvg.feed.FeedLog;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.LogBudget;
import dev.lvg.tenancy.Tenant;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One sink: publishes every tenant's change feed into a broker from the log, in position order, by
 * a cursor per tenant that moves only past what the broker acknowledged. One gateway publishes a
 * sink at a time, holding its lease; another takes it over once the holder has not renewed it for
 * {@value #LEASE_SECONDS} seconds (at once when it stopped). What was published but not yet
 * recorded when a holder died is published again by the next, under the same event id, for the
 * broker to drop; a broker that refuses or is away holds the cursor where it is, and commits never
 * wait for it.
 */
final class FeedSink {
  private static final Logger LOG = LoggerFactory.getLogger(FeedSink.class);
  private final LogBudget failuresLogged = new LogBudget(1);
  static final int LEASE_SECONDS = 5;
  private static final int PAGE = 1_000;
  private static final long RUN_BUDGET_MILLIS = 1_000;

  /** Leases sink $1 to owner $2 for $3 seconds when free, expired or already its own. */
  static final String LEASE =
      """
      INSERT INTO feed_sink_leases AS l (sink, owner, lease_until)
      VALUES ($1, $2, now() + make_interval(secs => $3))
      ON CONFLICT (sink) DO UPDATE SET owner = $2, lease_until = now() + make_interval(secs => $3)
      WHERE l.owner = $2 OR l.lease_until < now()
      RETURNING owner""";

  /**
   * The tenants (of those $2 names, or all) whose feed holds events sink $1 has not published: a
   * read of every tenant's feed head without locks (on Citus, over every shard); a tenant the sink
   * never published starts at the start of its retained log.
   */
  static final String DUE =
      """
      SELECT h.tenant_id, t.name, h.last_position, h.expired_through,
             COALESCE(c.published_through, h.expired_through) AS published_through
      FROM feed_heads h JOIN tenants t ON t.id = h.tenant_id
      LEFT JOIN feed_sink_cursors c ON c.tenant_id = h.tenant_id AND c.sink = $1
      WHERE h.last_position > COALESCE(c.published_through, h.expired_through)
        AND ($2::text[] IS NULL OR t.name = ANY($2))
      ORDER BY h.tenant_id LIMIT 1000""";

  /** Tenant $1's cursor of sink $2 moved to $3 (never back, whoever writes it). */
  static final String PUBLISHED =
      """
      INSERT INTO feed_sink_cursors (tenant_id, sink, published_through) VALUES ($1, $2, $3)
      ON CONFLICT (tenant_id, sink)
      DO UPDATE SET published_through = GREATEST(feed_sink_cursors.published_through, $3)""";

  /** Gives up sink $1's lease held by $2. */
  static final String RELEASE = "DELETE FROM feed_sink_leases WHERE sink = $1 AND owner = $2";

  private final String name;
  private final Publisher publisher;
  private final Pool pool;
  private final FeedLog log;
  private final String[] tenants;
  private final BooleanSupplier stopping;
  private final String owner = UUID.randomUUID().toString();
  private final Counter published;
  private final Counter duplicates;
  private final Counter failures;
  private final Counter missed;
  private final AtomicLong lagEvents = new AtomicLong();
  private final AtomicLong lagMillis = new AtomicLong();
  private final AtomicLong leader = new AtomicLong();

  FeedSink(
      String name,
      Publisher publisher,
      Pool pool,
      FeedLog log,
      List<String> tenants,
      BooleanSupplier stopping,
      MeterRegistry registry) {
    this.name = name;
    this.publisher = publisher;
    this.pool = pool;
    this.log = log;
    this.tenants = tenants == null ? null : tenants.toArray(String[]::new);
    this.stopping = stopping;
    this.published = counter(registry, "lvg_feed_sink_published", "Events the broker acknowledged");
    this.duplicates =
        counter(
            registry,
            "lvg_feed_sink_duplicates",
            "Events published again (after a holder died) that the broker dropped by their id");
    this.failures =
        counter(
            registry, "lvg_feed_sink_failures", "Publishes the broker refused or never answered");
    this.missed =
        counter(registry, "lvg_feed_sink_missed", "Events that expired before they were published");
    Gauge.builder("lvg_feed_sink_lag_events", lagEvents::get)
        .tag("sink", name)
        .description("Events recorded and not yet published, over every tenant")
        .register(registry);
    Gauge.builder("lvg_feed_sink_lag_seconds", () -> lagMillis.get() / 1000.0)
        .tag("sink", name)
        .description("Age of the oldest event the last run published, when it was published")
        .register(registry);
    Gauge.builder("lvg_feed_sink_leader", leader::get)
        .tag("sink", name)
        .description("1 while this gateway holds the sink's lease and publishes it")
        .register(registry);
  }

  /** One run: renews or takes the lease, then publishes what is due, for about a second at most. */
  Future<?> run() {
    return pool.preparedQuery(LEASE)
        .execute(Tuple.of(name, owner, LEASE_SECONDS))
        .compose(
            rows -> {
              leader.set(rows.size());
              if (rows.size() == 0) {
                // Another gateway publishes: its gauges tell the lag, this one's would be stale.
                lagEvents.set(0);
                lagMillis.set(0);
                return Future.succeededFuture();
              }
              return publishDue();
            })
        .onFailure(
            failed -> {
              failures.increment();
              if (failuresLogged.allows(System.currentTimeMillis())) {
                LOG.warn(
                    "sink {} cannot publish now: {}{}",
                    name,
                    failed.getMessage(),
                    failed.getCause() == null ? "" : ": " + failed.getCause());
              }
            });
  }

  private Future<?> publishDue() {
    return pool.preparedQuery(DUE)
        .execute(Tuple.tuple().addString(name).addArrayOfString(tenants))
        .compose(
            rows -> {
              long behind = 0;
              for (Row row : rows) {
                behind += row.getLong("last_position") - row.getLong("published_through");
              }
              lagEvents.set(behind);
              if (rows.size() == 0) {
                lagMillis.set(0);
                return Future.succeededFuture();
              }
              long until = System.currentTimeMillis() + RUN_BUDGET_MILLIS;
              Future<?> done = publisher.ready();
              for (Row row : rows) {
                Tenant tenant = new Tenant(row.getLong("tenant_id"), row.getString("name"));
                long from = row.getLong("published_through");
                done = done.compose(previous -> publishFrom(tenant, from, until));
              }
              return done;
            });
  }

  /** Publishes {@code tenant}'s events after {@code position}, page by page, until caught up. */
  private Future<Void> publishFrom(Tenant tenant, long position, long until) {
    if (stopping.getAsBoolean() || System.currentTimeMillis() > until) {
      return Future.succeededFuture();
    }
    return FeedLog.head(pool, tenant)
        .compose(
            head ->
                log.page(pool, tenant, head, position, FeedFilter.ALL, PAGE)
                    .recover(
                        failure ->
                            expired(failure)
                                ? skipExpired(tenant, position, head.expiredThrough())
                                : Future.failedFuture(failure)))
        .compose(
            page -> {
              if (page == null) {
                return Future.succeededFuture();
              }
              List<ObjectNode> events = page.events();
              long next = page.next().position();
              if (events.isEmpty()) {
                return next > position
                    ? record(tenant, next).compose(saved -> publishFrom(tenant, next, until))
                    : Future.succeededFuture();
              }
              lagMillis.set(ageMillis(events.get(0)));
              return publisher
                  .publish(tenant, events)
                  .compose(
                      outcome -> {
                        published.increment(outcome.acknowledged());
                        duplicates.increment(outcome.duplicates());
                        long through =
                            outcome.acknowledged() == events.size()
                                ? next
                                : outcome.acknowledged() == 0
                                    ? position
                                    : positionOf(events.get(outcome.acknowledged() - 1));
                        Future<Void> saved =
                            through > position ? record(tenant, through) : Future.succeededFuture();
                        if (outcome.failure() != null) {
                          // The run ends here (counted and logged once, by run()); the next
                          // publishes again from the cursor, on a new connection.
                          return saved
                              .compose(recorded -> publisher.close())
                              .compose(
                                  closed ->
                                      Future.failedFuture(
                                          new IllegalStateException(
                                              "the broker did not take tenant "
                                                  + tenant.name()
                                                  + "'s events after position "
                                                  + through,
                                              outcome.failure())));
                        }
                        return saved.compose(recorded -> publishFrom(tenant, through, until));
                      });
            });
  }

  /** A tenant whose events expired before they were published: counted, and passed over. */
  private Future<FeedLog.Page> skipExpired(Tenant tenant, long position, long expiredThrough) {
    missed.increment(Math.max(0, expiredThrough - position));
    LOG.warn(
        "sink {}: tenant {}'s events {} to {} expired before they were published",
        name,
        tenant.name(),
        position + 1,
        expiredThrough);
    return record(tenant, expiredThrough).map((FeedLog.Page) null);
  }

  private Future<Void> record(Tenant tenant, long through) {
    return pool.preparedQuery(PUBLISHED).execute(Tuple.of(tenant.id(), name, through)).mapEmpty();
  }

  /** Gives up the lease, so that another gateway takes the sink over at once, and disconnects. */
  Future<Void> close() {
    return pool.preparedQuery(RELEASE)
        .execute(Tuple.of(name, owner))
        .transform(released -> publisher.close());
  }

  private static boolean expired(Throwable failure) {
    return failure instanceof ApiException api && api.errorCode() == ErrorCode.CURSOR_GONE;
  }

  static long positionOf(ObjectNode event) {
    return FeedCursor.parse(event.get("id").asText()).position();
  }

  private static long ageMillis(ObjectNode event) {
    long at = OffsetDateTime.parse(event.get("time").asText()).toInstant().toEpochMilli();
    return Math.max(0, System.currentTimeMillis() - at);
  }

  private Counter counter(MeterRegistry registry, String meter, String description) {
    return Counter.builder(meter).tag("sink", name).description(description).register(registry);
  }
}
