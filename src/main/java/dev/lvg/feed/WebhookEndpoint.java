package dev.lvg.feed;

import dev.lvg.tenancy.Access;
import dev.lvg.tenancy.Grants;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A webhook endpoint as its lease read it: whose it is, where its events go, the secrets that sign
 * them (its own, and for a day after a rotation the one it replaced), the event types it takes
 * (null: all), the grantee whose rights limit what it is sent (null: everything), how far it has
 * been delivered and how many attempts the next event has had.
 */
record WebhookEndpoint(
    Tenant tenant,
    String id,
    String url,
    List<String> secrets,
    List<String> eventTypes,
    String grantee,
    long deliveredThrough,
    int attempts) {

  /** The endpoint of a row of {@link WebhookDispatcher#LEASE}, judged at {@code now}. */
  static WebhookEndpoint of(Row row, Instant now) {
    List<String> secrets = new ArrayList<>(2);
    secrets.add(row.getString("secret"));
    OffsetDateTime previousUntil = row.getOffsetDateTime("previous_until");
    if (row.getString("previous") != null
        && previousUntil != null
        && previousUntil.toInstant().isAfter(now)) {
      secrets.add(row.getString("previous"));
    }
    String[] types = row.getArrayOfStrings("event_types");
    return new WebhookEndpoint(
        new Tenant(row.getLong("tenant_id"), row.getString("tenant")),
        row.getString("id"),
        row.getString("url"),
        List.copyOf(secrets),
        types == null ? null : List.of(types),
        row.getString("grantee"),
        row.getLong("delivered_through"),
        row.getInteger("attempts"));
  }

  /**
   * Which of the tenant's events it takes: of its types; for an endpoint that acts as a grantee,
   * only of what that grantee may read, as its grants stand now.
   */
  Future<FeedFilter> filter(SqlClient db) {
    FeedFilter filter =
        new FeedFilter(eventTypes == null ? null : EventTypes.operations(eventTypes), null);
    return grantee == null
        ? Future.succeededFuture(filter)
        : Grants.of(db, tenant.id(), List.of(grantee))
            .map(grants -> filter.readableBy(Access.of(Set.of(), grants)));
  }
}
