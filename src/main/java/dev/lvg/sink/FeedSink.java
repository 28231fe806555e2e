package dev.lvg.sink;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.feed.FeedCursor;
import dev.lvg.feed.FeedFilter;
import dev.lvg.feed.FeedLog;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.LogBudget;
import dev.lvg.tenancy.Tenant;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.UUID;
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

  /** How often the holder renews its lease: well within it, and not at every run. */
  private static final long RENEW_MILLIS = 1_000;

  private static final int PAGE = 1_000;
  private static final long RUN_BUDGET_MILLIS = 1_000;

  private final String name;
  private final Publisher publisher;
  private final Pool pool;
  private final FeedLog log;
  private final String[] tenants;
  private final boolean selectedTenants;
  private final BooleanSupplier stopping;
  private final String owner = UUID.randomUUID().toString();
  private final SinkMeters meters;
  private long renewed;

  FeedSink(
      String name,
      Publisher publisher,
      Pool pool,
      FeedLog log,
      List<String> tenants,
      boolean selectedTenants,
      BooleanSupplier stopping,
      MeterRegistry registry) {
    this.name = name;
    this.publisher = publisher;
    this.pool = pool;
    this.log = log;
    this.tenants = tenants == null ? null : tenants.toArray(String[]::new);
    this.selectedTenants = selectedTenants;
    this.stopping = stopping;
    this.meters = new SinkMeters(name, registry);
  }

  /**
   * One run: takes the lease (or renews it, once a second), then publishes what is due, for about a
   * second at most.
   */
  Future<?> run() {
    long now = System.currentTimeMillis();
    Future<Boolean> holds =
        meters.leader.get() == 1 && now - renewed < RENEW_MILLIS
            ? Future.succeededFuture(true)
            : pool.preparedQuery(SinkStatements.LEASE)
                .execute(Tuple.of(name, owner, LEASE_SECONDS))
                .map(
                    rows -> {
                      renewed = now;
                      meters.leader.set(rows.size());
                      return rows.size() == 1;
                    });
    return holds
        .compose(
            held -> {
              if (!held) {
                // Another gateway publishes: its gauges tell the lag, this one's would be stale.
                meters.lagEvents.set(0);
                meters.lagMillis.set(0);
                return Future.succeededFuture();
              }
              return publishDue();
            })
        .onFailure(
            failed -> {
              meters.failures.increment();
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
    return pool.preparedQuery(SinkStatements.DUE)
        .execute(
            Tuple.tuple().addString(name).addArrayOfString(tenants).addBoolean(selectedTenants))
        .compose(
            rows -> {
              long behind = 0;
              for (Row row : rows) {
                behind += row.getLong("last_position") - row.getLong("published_through");
              }
              meters.lagEvents.set(behind);
              if (rows.size() == 0) {
                meters.lagMillis.set(0);
                return Future.succeededFuture();
              }
              long until = System.currentTimeMillis() + RUN_BUDGET_MILLIS;
              Future<?> done = publisher.ready();
              for (Row row : rows) {
                Tenant tenant = new Tenant(row.getLong("tenant_id"), row.getString("name"));
                FeedLog.Head head =
                    new FeedLog.Head(
                        row.getString("epoch"),
                        row.getLong("last_position"),
                        row.getLong("expired_through"));
                long from = row.getLong("published_through");
                long attempted = row.getLong("attempted_through");
                done = done.compose(previous -> publishFrom(tenant, head, from, attempted, until));
              }
              return done;
            });
  }

  /**
   * Publishes {@code tenant}'s events after {@code position} up to {@code head}, page by page,
   * recording before each page how far it is about to send ({@code attempted}: how far anyone sent
   * before). What is written after that head waits for the next run: a sink that keeps up publishes
   * a run's worth of events at once, not a few at a time.
   */
  private Future<Void> publishFrom(
      Tenant tenant, FeedLog.Head head, long position, long attempted, long until) {
    if (stopping.getAsBoolean() || System.currentTimeMillis() > until || position >= head.last()) {
      return Future.succeededFuture();
    }
    return log.page(pool, tenant, head, position, FeedFilter.ALL, PAGE)
        .recover(
            failure ->
                expired(failure)
                    ? FeedLog.head(pool, tenant)
                        .compose(now -> skipExpired(tenant, position, now.expiredThrough()))
                    : Future.failedFuture(failure))
        .compose(
            page -> {
              if (page == null) {
                return Future.succeededFuture();
              }
              List<ObjectNode> events = page.events();
              long next = page.next().position();
              if (events.isEmpty()) {
                return next > position
                    ? record(tenant, next)
                        .compose(saved -> publishFrom(tenant, head, next, attempted, until))
                    : Future.succeededFuture();
              }
              meters.lagMillis.set(ageMillis(events.get(0)));
              if (attempted > position) {
                meters.resent.increment(
                    events.stream().filter(e -> positionOf(e) <= attempted).count());
              }
              Future<?> noted =
                  next > attempted
                      ? pool.preparedQuery(SinkStatements.ATTEMPTED)
                          .execute(Tuple.of(tenant.id(), name, position, next))
                      : Future.succeededFuture();
              return noted
                  .compose(sending -> publisher.publish(tenant, events))
                  .compose(
                      outcome -> {
                        meters.published.increment(outcome.acknowledged());
                        meters.duplicates.increment(outcome.duplicates());
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
                        long sent = Math.max(attempted, next);
                        return saved.compose(
                            recorded -> publishFrom(tenant, head, through, sent, until));
                      });
            });
  }

  /** A tenant whose events expired before they were published: counted, and passed over. */
  private Future<FeedLog.Page> skipExpired(Tenant tenant, long position, long expiredThrough) {
    meters.missed.increment(Math.max(0, expiredThrough - position));
    LOG.warn(
        "sink {}: tenant {}'s events {} to {} expired before they were published",
        name,
        tenant.name(),
        position + 1,
        expiredThrough);
    return record(tenant, expiredThrough).map((FeedLog.Page) null);
  }

  private Future<Void> record(Tenant tenant, long through) {
    return pool.preparedQuery(SinkStatements.PUBLISHED)
        .execute(Tuple.of(tenant.id(), name, through))
        .mapEmpty();
  }

  /** Gives up the lease, so that another gateway takes the sink over at once, and disconnects. */
  Future<Void> close() {
    return pool.preparedQuery(SinkStatements.RELEASE)
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
}
