package dev.lvg.sink;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.Routes;
import dev.lvg.http.Json;
import dev.lvg.operation.GatewayOperation;
import io.vertx.core.Future;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * {@code GET /admin/v1/sinks}: each configured sink's lag and lease, read from the database, so
 * that any gateway answers for the one that publishes (the console's live page shows it).
 */
record SinkRoutes(Pool pool, List<String> sinks, String[] tenants) {
  /**
   * For sink $1: the events not yet published over every tenant it publishes ($2, or all), and its
   * lease; a read of every tenant's feed head without locks (on Citus, over every shard).
   */
  static final String STATE =
      """
      SELECT COALESCE((SELECT sum(h.last_position - COALESCE(c.published_through, h.expired_through))
                       FROM feed_heads h JOIN tenants t ON t.id = h.tenant_id
                       LEFT JOIN feed_sink_cursors c ON c.tenant_id = h.tenant_id AND c.sink = $1
                       WHERE $2::text[] IS NULL OR t.name = ANY($2)), 0)::bigint AS lag,
             l.owner, (extract(epoch FROM l.lease_until) * 1000)::bigint AS lease_until
      FROM (SELECT $1::text AS sink) s LEFT JOIN feed_sink_leases l ON l.sink = s.sink""";

  void mount(Routes routes) {
    routes.json(GatewayOperation.DESCRIBE_SINKS, ctx -> describe());
  }

  private Future<ObjectNode> describe() {
    ObjectNode answer = Json.object();
    ArrayNode list = answer.putArray("sinks");
    Future<?> done = Future.succeededFuture();
    for (String sink : sinks) {
      done =
          done.compose(
              previous ->
                  pool.preparedQuery(STATE)
                      .execute(Tuple.tuple().addString(sink).addArrayOfString(tenants))
                      .onSuccess(
                          rows -> {
                            Row row = rows.iterator().next();
                            list.addObject()
                                .put("sink", sink)
                                .put("lag_events", row.getLong("lag"))
                                .put("holder", row.getString("owner"))
                                .put("lease_until", row.getLong("lease_until"));
                          }));
    }
    return done.map(answer);
  }
}
