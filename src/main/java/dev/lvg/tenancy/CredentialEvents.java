package dev.lvg.tenancy;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.pgclient.pubsub.PgSubscriber;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens on PostgreSQL's channel {@value Credentials#CHANNEL} on a connection of its own, so that
 * a key revoked or a tenant disabled through any gateway is forgotten by this one as soon as the
 * change commits. While the connection is down (checked every second) this gateway remembers
 * nothing and asks the database on every request; once it is back it forgets everything it may have
 * missed and remembers again.
 */
public final class CredentialEvents {
  private static final Logger LOG = LoggerFactory.getLogger(CredentialEvents.class);

  /** How often {@link #check} should run: the longest a lost connection goes unnoticed. */
  public static final long CHECK_MILLIS = 1000;

  private final PgSubscriber subscriber;
  private final TenantDirectory tenants;
  private boolean started;
  private boolean connected;

  private CredentialEvents(PgSubscriber subscriber, TenantDirectory tenants) {
    this.subscriber = subscriber;
    this.tenants = tenants;
  }

  /** Starts listening; completes once the first subscription is in place. */
  public static Future<CredentialEvents> listen(Vertx vertx, String url, TenantDirectory tenants) {
    PgSubscriber subscriber = PgSubscriber.subscriber(vertx, PgConnectOptions.fromUri(url));
    CredentialEvents events = new CredentialEvents(subscriber, tenants);
    subscriber.reconnectPolicy(attempts -> CHECK_MILLIS);
    subscriber
        .channel(Credentials.CHANNEL)
        .subscribeHandler(subscribed -> events.subscribed())
        .handler(payload -> tenants.forgetAll());
    return subscriber
        .connect()
        .map(
            connected -> {
              events.started();
              return events;
            });
  }

  private synchronized void subscribed() {
    PgConnection connection = subscriber.actualConnection();
    if (connection != null) {
      // Its failures (PostgreSQL stopping, a connection reset) would otherwise go to standard
      // error as bare stack traces; the periodic check reports the loss that matters.
      connection.exceptionHandler(
          failure ->
              LOG.debug("the connection that hears credential changes: {}", failure.toString()));
    }
    tenants.forgetAll();
    tenants.remember(true);
    if (!connected && started) {
      LOG.info("hearing about credential changes again; remembering resolved keys again");
    }
    connected = true;
  }

  private synchronized void started() {
    started = true;
  }

  /**
   * Notices a lost connection (every {@link #CHECK_MILLIS}, as one of the gateway's jobs): resolved
   * keys are then no longer remembered until it is back.
   */
  public synchronized void check() {
    if (connected && subscriber.actualConnection() == null) {
      connected = false;
      tenants.remember(false);
      LOG.warn(
          "not hearing about credential changes (connection lost); every request's key is looked"
              + " up until it is back");
    }
  }

  public Future<Void> close() {
    return subscriber.close();
  }
}
