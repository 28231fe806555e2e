package dev.lvg.catalog;

import dev.lvg.storage.ObjectStore;
import dev.lvg.storage.StorageRoot;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.Iterator;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes what dropped tables leave behind, off the request path: a drop queues a job in {@code
 * table_drops} in the statement that takes the table out of the catalog; the job {@code
 * table-drops} (one of the platform's jobs) takes the queued drops one at a time, deletes
 * everything under the table's location, then its versions and branches and the queue entry, in the
 * transaction that holds the entry's row lock. A crash leaves the job queued, and the next start
 * (of any replica) finishes it; replicas skip each other's jobs, and a gateway takes only jobs
 * under its own storage root (gateways with different roots may share a database).
 *
 * <p>Data is deleted only under the table's own location, and not at all when another table that
 * was not dropped has a location equal to it, inside it or around it (a registered location can
 * name any directory of the tenant's prefix): such a table's catalog entry goes, its data stays.
 */
public final class TableDrops {
  private static final Logger LOG = LoggerFactory.getLogger(TableDrops.class);

  /** How often an idle gateway looks for queued drops. */
  static final long POLL_MILLIS = 1000;

  /** The oldest queued drops under the root; claimed one by one with {@link #CLAIM_DROP}. */
  static final String NEXT_DROPS =
      """
      SELECT tenant_id, table_id FROM table_drops
      WHERE starts_with(location, $1) ORDER BY requested_at LIMIT 8""";

  /** Locks one queued drop of one tenant, unless another gateway holds it. */
  static final String CLAIM_DROP =
      """
      SELECT tenant_id, table_id, location FROM table_drops
      WHERE tenant_id = $1 AND table_id = $2 FOR UPDATE SKIP LOCKED""";

  static final String OVERLAPPING_TABLES =
      """
      SELECT count(*) FROM lance_tables
      WHERE tenant_id = $1 AND id <> $2 AND dropped_at IS NULL
        AND (location = $3 OR starts_with(location, $3 || '/') OR starts_with($3, location || '/'))""";
  static final String FORGET_DROPPED =
      """
      WITH versions AS (DELETE FROM table_versions WHERE tenant_id = $1 AND table_id = $2),
           branches AS (DELETE FROM table_branches WHERE tenant_id = $1 AND table_id = $2)
      DELETE FROM table_drops WHERE tenant_id = $1 AND table_id = $2""";

  /** At most this many drops are finished in one run; the rest wait for the next. */
  static final int DROPS_PER_RUN = 64;

  private final Pool pool;
  private final StorageRoot root;
  private final ObjectStore store;
  private final BooleanSupplier stopping;

  /** Attempts failed in a row; only the first failure and the recovery are logged. */
  private long failedInARow;

  /** Drops are finished until {@code stopping} says the gateway is stopping. */
  public TableDrops(Pool pool, StorageRoot root, ObjectStore store, BooleanSupplier stopping) {
    this.pool = pool;
    this.root = root;
    this.store = store;
    this.stopping = stopping;
  }

  /**
   * One run of the job: finishes queued drops one after another until none is left (or {@link
   * #DROPS_PER_RUN} are done, or the gateway is stopping), logging the first failure in a row and
   * the recovery.
   */
  public Future<Integer> run() {
    return drain(0)
        .onComplete(
            done -> {
              if (done.failed() && failedInARow++ == 0) {
                LOG.warn(
                    "deleting dropped tables failed; retrying every {} ms: {}",
                    POLL_MILLIS,
                    done.cause().toString());
              } else if (done.succeeded() && failedInARow > 0) {
                LOG.info(
                    "deleting dropped tables works again after {} failed attempts", failedInARow);
                failedInARow = 0;
              }
            });
  }

  private Future<Integer> drain(int finished) {
    if (finished >= DROPS_PER_RUN || stopping.getAsBoolean()) {
      return Future.succeededFuture(finished);
    }
    return finishOne()
        .compose(found -> found ? drain(finished + 1) : Future.succeededFuture(finished));
  }

  /** Finishes the oldest queued drop no one else is working on; answers whether there was one. */
  Future<Boolean> finishOne() {
    return pool.withTransaction(
        conn ->
            conn.preparedQuery(NEXT_DROPS)
                .execute(Tuple.of(root.locationPrefix()))
                .compose(candidates -> claimFirst(conn, candidates.iterator())));
  }

  /** Finishes the first of {@code candidates} it can lock; false when others hold them all. */
  private Future<Boolean> claimFirst(SqlConnection conn, Iterator<Row> candidates) {
    if (!candidates.hasNext()) {
      return Future.succeededFuture(false);
    }
    Row candidate = candidates.next();
    return conn.preparedQuery(CLAIM_DROP)
        .execute(Tuple.of(candidate.getLong("tenant_id"), candidate.getLong("table_id")))
        .compose(
            claimed ->
                claimed.size() == 0
                    ? claimFirst(conn, candidates)
                    : finish(conn, claimed.iterator().next()).map(true));
  }

  private Future<Void> finish(SqlConnection conn, Row job) {
    long tenant = job.getLong("tenant_id");
    long table = job.getLong("table_id");
    String location = job.getString("location");
    Tuple key = Tuple.of(tenant, table);
    return conn.preparedQuery(OVERLAPPING_TABLES)
        .execute(Tuple.of(tenant, table, location))
        .compose(
            overlapping -> {
              String storeKey = root.keyOf(location);
              if (overlapping.iterator().next().getLong(0) > 0 || storeKey == null) {
                LOG.warn(
                    "dropped table {} of tenant {}: its data at {} stays (shared with another"
                        + " table, or outside the storage root)",
                    table,
                    tenant,
                    location);
                return Future.succeededFuture(0L);
              }
              return store.deleteTree(storeKey);
            })
        .compose(
            deleted -> {
              LOG.info(
                  "dropped table {} of tenant {}: {} objects deleted under {}",
                  table,
                  tenant,
                  deleted,
                  location);
              return conn.preparedQuery(FORGET_DROPPED).execute(key).mapEmpty();
            });
  }
}
