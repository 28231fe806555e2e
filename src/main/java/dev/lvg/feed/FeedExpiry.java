package dev.lvg.feed;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes feed events older than {@code LVG_EVENTS_RETENTION}, in the background, a tenant and a
 * bounded batch at a time: each batch deletes its events and moves the tenant's expired position in
 * one transaction, so a reader sees both or neither. Several gateways may expire at once; each
 * batch takes only events still there.
 */
public final class FeedExpiry {
  private static final Logger LOG = LoggerFactory.getLogger(FeedExpiry.class);
  static final int BATCH = 5000;

  static final String TENANTS = "SELECT tenant_id FROM feed_heads ORDER BY tenant_id";

  /** Deletes up to $3 events of tenant $1 recorded before now - $2 seconds. */
  static final String EXPIRE =
      """
      WITH gone AS (
        DELETE FROM audit_events a
        WHERE a.tenant_id = $1 AND (a.xact, a.seq) IN (
          SELECT o.xact, o.seq FROM audit_events o
          WHERE o.tenant_id = $1 AND o.last_position IS NOT NULL
            AND o.at < now() - make_interval(secs => $2)
          ORDER BY o.last_position LIMIT $3)
        RETURNING a.last_position, cardinality(a.object) AS events)
      UPDATE feed_heads h SET expired_through = GREATEST(h.expired_through, g.last)
      FROM (SELECT max(last_position) AS last, sum(events) AS events, count(*) AS rows FROM gone) g
      WHERE h.tenant_id = $1 AND g.last IS NOT NULL
      RETURNING g.events, g.rows""";

  private final Pool pool;
  private final Duration retention;
  private final Counter expired;
  private final Timer runs;
  private boolean running;

  public FeedExpiry(Pool pool, Duration retention, MeterRegistry registry) {
    this.pool = pool;
    this.retention = retention;
    this.expired =
        Counter.builder("lvg_feed_events_expired")
            .description("Change-feed events deleted for being older than the retention")
            .register(registry);
    this.runs =
        Timer.builder("lvg_feed_expiry")
            .description("How long one pass of the change feed's expiry took")
            .register(registry);
  }

  /** One pass over every tenant; answers how many events it deleted. */
  public Future<Long> pass() {
    if (running) {
      return Future.succeededFuture(0L);
    }
    running = true;
    long started = System.nanoTime();
    return pool.query(TENANTS)
        .execute()
        .compose(
            rows -> {
              List<Long> tenants = new ArrayList<>();
              for (Row row : rows) {
                tenants.add(row.getLong(0));
              }
              return expire(tenants, 0, 0L);
            })
        .onComplete(
            outcome -> {
              running = false;
              runs.record(Duration.ofNanos(System.nanoTime() - started));
              if (outcome.failed()) {
                LOG.warn("the change feed's expiry failed: {}", outcome.cause().toString());
              } else if (outcome.result() > 0) {
                LOG.info("the change feed's expiry deleted {} events", outcome.result());
              }
            });
  }

  private Future<Long> expire(List<Long> tenants, int index, long done) {
    if (index == tenants.size()) {
      return Future.succeededFuture(done);
    }
    return pool.preparedQuery(EXPIRE)
        .execute(Tuple.of(tenants.get(index), (double) retention.toSeconds(), BATCH))
        .compose(
            rows -> {
              Row row = rows.size() == 0 ? null : rows.iterator().next();
              long events = row == null ? 0 : row.getLong("events");
              expired.increment(events);
              // A full batch may have left more behind: the same tenant again, else the next.
              boolean full = row != null && row.getLong("rows") == BATCH;
              return expire(tenants, full ? index : index + 1, done + events);
            });
  }
}
