package dev.lvg.feed;

import dev.lvg.auth.Authentication;
import dev.lvg.config.FeedSettings;
import dev.lvg.http.ApiException;
import dev.lvg.overload.ConcurrencyLimiter;
import dev.lvg.tenancy.Principal;
import dev.lvg.tenancy.Tenant;
import dev.lvg.tenancy.TenantDirectory;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The live tails of one event loop. While any is open it reads the heads of their tenants' feeds,
 * one statement for all of them, every {@code LVG_EVENTS_POLL_MILLIS}, and wakes the tails whose
 * tenant moved; so a tail costs the database nothing while its feed is quiet, and the same whatever
 * gateway the commits came through. A tail's pages are admitted as reads, so tails never take the
 * slots commits use. When the gateway drains, every tail ends with its cursor.
 *
 * <p>A tail holds its credential only as long as the credential holds: when credentials change on
 * any gateway (a key revoked, a tenant disabled or deleted; heard through the tenant directory),
 * every tail authenticates again and ends, naming why, if its credential no longer grants reading;
 * one whose credential expires ends at its expiry. While changes cannot be heard about, tails
 * authenticate again every second.
 */
public final class FeedHub {
  static final String HEADS =
      """
      SELECT f.epoch, t.id AS tenant_id, COALESCE(h.last_position, 0) AS last_position,
             COALESCE(h.expired_through, 0) AS expired_through
      FROM feed_epoch f CROSS JOIN unnest($1::bigint[]) t(id)
      LEFT JOIN feed_heads h ON h.tenant_id = t.id""";

  static final String TENANT_EXISTS = "SELECT 1 FROM tenants WHERE id = $1";

  /** How often tails authenticate again while credential changes cannot be heard about. */
  static final long RECHECK_MILLIS = 1000;

  /** What the hub counts: events sent, tails cut off, tails open. */
  public interface Metrics {
    void streamed(int events);

    void cutOff();
  }

  private final Vertx vertx;
  private final Pool pool;
  private final FeedLog log;
  private final FeedSettings settings;
  private final ConcurrencyLimiter reads;
  private final AtomicBoolean draining;
  private final StreamSlots slots;
  private final TenantDirectory tenants;
  private final Metrics metrics;
  private final Map<Long, List<FeedStream>> byTenant = new HashMap<>();
  private final java.util.concurrent.atomic.AtomicLong lag;
  private long timer = -1;
  private boolean looking;
  private long checkedGeneration;
  private long recheckAt = Long.MAX_VALUE;

  public FeedHub(
      Vertx vertx,
      Pool pool,
      Feed feed,
      ConcurrencyLimiter reads,
      AtomicBoolean draining,
      TenantDirectory tenants) {
    this.vertx = vertx;
    this.pool = pool;
    this.log = feed.log();
    this.settings = feed.settings();
    this.reads = reads;
    this.draining = draining;
    this.slots = feed.slots();
    this.tenants = tenants;
    this.metrics = feed;
    this.lag = feed.streamLag(new java.util.concurrent.atomic.AtomicLong());
  }

  FeedSettings settings() {
    return settings;
  }

  Metrics metrics() {
    return metrics;
  }

  /**
   * Takes a tail's slot for {@code principal}: null when taken, else the 503 that refuses it (this
   * gateway, the tenant or the credential holds as many as allowed).
   */
  ApiException admit(Principal principal) {
    return slots.take(principal);
  }

  /** Gives back a slot {@link #admit} took, for a tail that never opened. */
  void unadmit(Principal principal) {
    slots.give(principal);
  }

  void add(FeedStream stream) {
    byTenant.computeIfAbsent(stream.tenant().id(), id -> new ArrayList<>()).add(stream);
    if (timer < 0) {
      checkedGeneration = tenants.generation();
      timer = vertx.setPeriodic(settings.pollMillis(), id -> look());
    }
  }

  void remove(FeedStream stream) {
    List<FeedStream> streams = byTenant.get(stream.tenant().id());
    if (streams != null && streams.remove(stream)) {
      slots.give(stream.principal());
      if (streams.isEmpty()) {
        byTenant.remove(stream.tenant().id());
      }
    }
    if (byTenant.isEmpty() && timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
      lag.set(0);
    }
  }

  /** One page for a tail, admitted as a read of its tenant. */
  Future<FeedLog.Page> page(
      Tenant tenant, FeedLog.Head head, long after, FeedFilter filter, int size) {
    Future<ConcurrencyLimiter.Permit> admitted =
        reads == null
            ? Future.succeededFuture()
            : reads.acquire(Authentication.requesterOf(tenant.id()));
    return admitted.compose(
        permit ->
            log.page(pool, tenant, head, after, filter, size)
                .andThen(
                    done -> {
                      if (permit != null) {
                        permit.release();
                      }
                    }));
  }

  private void look() {
    long now = System.currentTimeMillis();
    if (draining.get()) {
      for (FeedStream stream : all()) {
        stream.end("shutdown", "the gateway is shutting down; resume from the cursor", now);
      }
      return;
    }
    if (byTenant.isEmpty()) {
      return;
    }
    checkCredentials(now);
    if (looking) {
      return;
    }
    looking = true;
    Long[] tenants = byTenant.keySet().toArray(Long[]::new);
    pool.preparedQuery(HEADS)
        .execute(Tuple.tuple().addArrayOfLong(tenants))
        .onComplete(
            outcome -> {
              looking = false;
              if (outcome.failed()) {
                return; // the database is away: the next look tries again
              }
              Map<Long, FeedLog.Head> heads = new HashMap<>();
              for (Row row : outcome.result()) {
                heads.put(
                    row.getLong("tenant_id"),
                    new FeedLog.Head(
                        row.getString("epoch"),
                        row.getLong("last_position"),
                        row.getLong("expired_through")));
              }
              long at = System.currentTimeMillis();
              long behind = 0;
              for (FeedStream stream : all()) {
                FeedLog.Head head = heads.get(stream.tenant().id());
                if (head != null) {
                  behind = Math.max(behind, head.last() - stream.position());
                  stream.tick(head, at);
                }
              }
              lag.set(behind);
            });
  }

  /**
   * Ends the tails whose credential expired, and makes every tail authenticate again when
   * credentials changed since the last look (or every second while changes cannot be heard about,
   * or a second after a check that could not reach the database).
   */
  private void checkCredentials(long now) {
    for (FeedStream stream : all()) {
      if (now >= stream.principal().expiresAtMillis()) {
        stream.end("expired", "this credential expired", now);
      }
    }
    long generation = tenants.generation();
    boolean changed = generation != checkedGeneration;
    if (!changed && now < recheckAt && tenants.remembering()) {
      return;
    }
    checkedGeneration = generation;
    recheckAt = tenants.remembering() ? Long.MAX_VALUE : now + RECHECK_MILLIS;
    for (FeedStream stream : all()) {
      stream.authenticateAgain();
    }
  }

  /** A check of a tail's credential could not be made: it is made again a second later. */
  void checkAgainLater() {
    recheckAt = Math.min(recheckAt, System.currentTimeMillis() + RECHECK_MILLIS);
  }

  /**
   * Whether the tenant {@code id} still exists (a key that no longer resolves may have gone with
   * it).
   */
  Future<Boolean> tenantExists(long id) {
    return pool.preparedQuery(TENANT_EXISTS).execute(Tuple.of(id)).map(rows -> rows.size() > 0);
  }

  private List<FeedStream> all() {
    List<FeedStream> all = new ArrayList<>();
    byTenant.values().forEach(all::addAll);
    return all;
  }
}
