package dev.lvg.feed;

import dev.lvg.tenancy.Tenant;
import io.vertx.sqlclient.Row;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;

/**
 * A webhook endpoint as its lease read it: whose it is, where its events go, the secrets that sign
 * them (its own, and for a day after a rotation the one it replaced), the event types it takes
 * (null: all), how far it has been delivered and how many attempts the next event has had.
 */
record WebhookEndpoint(
    Tenant tenant,
    String id,
    String url,
    List<String> secrets,
    List<String> eventTypes,
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
        row.getLong("delivered_through"),
        row.getInteger("attempts"));
  }

  /** Which of the tenant's events it takes. */
  FeedLog.Filter filter() {
    return new FeedLog.Filter(eventTypes == null ? null : EventTypes.operations(eventTypes), null);
  }
}
