package dev.lvg.sink;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.tenancy.Tenant;
import io.vertx.core.Future;
import java.util.List;

/** A broker a sink ({@link FeedSink}) publishes into. */
interface Publisher {
  /** Connected, and what the broker needs (a stream) in place; failed while it is not. */
  Future<Void> ready();

  /**
   * Publishes {@code events} of {@code tenant} in their order; answers how many, from the first,
   * the broker acknowledged (stopping at the first it did not) and how many of those it had already
   * (dropped by their id).
   */
  Future<Published> publish(Tenant tenant, List<ObjectNode> events);

  /**
   * Disconnects; the next {@link #ready} connects anew. Done after any publish the broker did not
   * fully acknowledge: a NATS connection that reconnected by itself to a broker that restarted was
   * seen to leave acknowledgements unanswered, and a Kafka producer that gave up on a batch is
   * better made anew.
   */
  Future<Void> close();

  /** What a publish got acknowledged: a prefix of the events, and the duplicates among them. */
  record Published(int acknowledged, int duplicates, Throwable failure) {}
}
