package dev.lvg.sink;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lvg.auth.AdminCaller;
import dev.lvg.auth.Routes;
import dev.lvg.config.SinkSettings;
import dev.lvg.db.Pools;
import dev.lvg.http.ApiException;
import dev.lvg.http.ErrorCode;
import dev.lvg.http.Json;
import dev.lvg.operation.GatewayOperation;
import dev.lvg.tenancy.AdminChanges;
import io.vertx.core.Future;
import io.vertx.ext.web.RoutingContext;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The sinks through the admin API: {@code GET /admin/v1/sinks}, each configured sink's lag, lease
 * and tenants, read from the database, so that any gateway answers for the one that publishes (the
 * console's live page shows it); and the tenants selected for a sink ({@code PUT} and {@code DELETE
 * /admin/v1/sinks/{sink}/tenants/{tenant}}), which the gateways publish when {@code
 * LVG_FEED_SINK_TENANTS=@admin}.
 */
record SinkRoutes(Pools pools, List<String> sinks, SinkSettings settings) {
  /**
   * For sink $1: the events not yet published over every tenant it publishes (as {@link
   * SinkStatements#DUE} chooses them), its lease and the tenants selected for it; a read of every
   * tenant's feed head without locks (on Citus, over every shard).
   */
  static final String STATE =
      """
      SELECT COALESCE((SELECT sum(h.last_position - COALESCE(c.published_through, h.expired_through))
                       FROM feed_heads h JOIN tenants t ON t.id = h.tenant_id
                       LEFT JOIN feed_sink_cursors c ON c.tenant_id = h.tenant_id AND c.sink = $1
                       WHERE ($2::text[] IS NULL OR t.name = ANY($2))
                         AND (NOT $3::boolean OR EXISTS (
                               SELECT 1 FROM feed_sink_tenants s
                               WHERE s.tenant_id = h.tenant_id AND s.sink = $1))), 0)::bigint AS lag,
             l.owner, (extract(epoch FROM l.lease_until) * 1000)::bigint AS lease_until,
             (SELECT array_agg(t.name ORDER BY t.name) FROM feed_sink_tenants s
              JOIN tenants t ON t.id = s.tenant_id WHERE s.sink = $1) AS selected
      FROM (SELECT $1::text AS sink) s LEFT JOIN feed_sink_leases l ON l.sink = s.sink""";

  /** Tenant $1's id. */
  private static final String TENANT = "SELECT id FROM tenants WHERE name = $1";

  /** Selects tenant $1 for sink $2; a row when it was not selected before. */
  private static final String SELECT =
      """
      INSERT INTO feed_sink_tenants (tenant_id, sink) VALUES ($1, $2)
      ON CONFLICT DO NOTHING RETURNING sink""";

  /** No longer selects tenant $1 for sink $2; a row when it was selected. */
  private static final String DESELECT =
      "DELETE FROM feed_sink_tenants WHERE tenant_id = $1 AND sink = $2 RETURNING sink";

  void mount(Routes routes) {
    routes.json(GatewayOperation.DESCRIBE_SINKS, ctx -> describe());
    routes.json(GatewayOperation.ADD_SINK_TENANT, ctx -> select(ctx, true));
    routes.json(GatewayOperation.REMOVE_SINK_TENANT, ctx -> select(ctx, false));
  }

  private Future<ObjectNode> describe() {
    String[] listed = settings.tenants() == null ? null : settings.tenants().toArray(String[]::new);
    ObjectNode answer = Json.object();
    ArrayNode list = answer.putArray("sinks");
    Future<?> done = Future.succeededFuture();
    for (String sink : sinks) {
      done =
          done.compose(
              previous ->
                  pools
                      .reads()
                      .preparedQuery(STATE)
                      .execute(
                          Tuple.tuple()
                              .addString(sink)
                              .addArrayOfString(listed)
                              .addBoolean(settings.selectedTenants()))
                      .onSuccess(rows -> list.add(state(sink, rows.iterator().next()))));
    }
    return done.map(answer);
  }

  private ObjectNode state(String sink, Row row) {
    ObjectNode state =
        Json.object()
            .put("sink", sink)
            .put("lag_events", row.getLong("lag"))
            .put("holder", row.getString("owner"))
            .put("lease_until", row.getLong("lease_until"));
    List<String> tenants = null;
    if (settings.selectedTenants()) {
      state.put("publishes", "selected");
      String[] selected = row.getArrayOfStrings("selected");
      tenants = selected == null ? List.of() : List.of(selected);
    } else if (settings.tenants() != null) {
      state.put("publishes", "listed");
      tenants = settings.tenants();
    } else {
      state.put("publishes", "all");
    }
    if (tenants == null) {
      state.putNull("tenants");
    } else {
      tenants.forEach(state.putArray("tenants")::add);
    }
    return state;
  }

  /** Selects the path's tenant for the path's sink ({@code selected}) or stops selecting it. */
  private Future<ObjectNode> select(RoutingContext ctx, boolean selected) {
    String sink = ctx.pathParam("sink");
    String tenant = ctx.pathParam("tenant");
    if (!sink.equals("kafka") && !sink.equals("nats")) {
      throw ApiException.invalidInput("a sink is kafka or nats, got '" + sink + "'");
    }
    GatewayOperation operation =
        selected ? GatewayOperation.ADD_SINK_TENANT : GatewayOperation.REMOVE_SINK_TENANT;
    return pools
        .writes()
        .withTransaction(
            conn ->
                conn.preparedQuery(TENANT)
                    .execute(Tuple.of(tenant))
                    .compose(
                        found -> {
                          if (found.size() == 0) {
                            return Future.failedFuture(
                                new ApiException(
                                    ErrorCode.NAMESPACE_NOT_FOUND,
                                    "tenant '" + tenant + "' does not exist"));
                          }
                          long id = found.iterator().next().getLong(0);
                          return conn.preparedQuery(selected ? SELECT : DESELECT)
                              .execute(Tuple.of(id, sink))
                              .compose(
                                  changed ->
                                      changed.size() == 0
                                          ? Future.succeededFuture()
                                          : AdminChanges.recordChange(
                                              conn,
                                              id,
                                              AdminCaller.of(ctx),
                                              operation.id(),
                                              sink,
                                              "{}"));
                        }))
        .map(
            done ->
                Json.object().put("sink", sink).put("tenant", tenant).put("selected", selected));
  }

  /** The sinks a gateway with {@code settings} publishes. */
  static List<String> configured(SinkSettings settings) {
    List<String> sinks = new ArrayList<>();
    if (settings.kafka()) {
      sinks.add("kafka");
    }
    if (settings.nats()) {
      sinks.add("nats");
    }
    return List.copyOf(sinks);
  }
}
