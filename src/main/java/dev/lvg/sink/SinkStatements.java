package dev.lvg.sink;

/** The statements of the sinks' cursors, leases and selected tenants. */
final class SinkStatements {
  private SinkStatements() {}

  /** Leases sink $1 to owner $2 for $3 seconds when free, expired or already its own. */
  static final String LEASE =
      """
      INSERT INTO feed_sink_leases AS l (sink, owner, lease_until)
      VALUES ($1, $2, now() + make_interval(secs => $3))
      ON CONFLICT (sink) DO UPDATE SET owner = $2, lease_until = now() + make_interval(secs => $3)
      WHERE l.owner = $2 OR l.lease_until < now()
      RETURNING owner""";

  /**
   * The tenants sink $1 publishes (every tenant, those named in $2, or ($3) those the admin API
   * selected for it; {@link SinkRoutes#STATE} asks the same) whose feed holds events it has not
   * published: a read of every tenant's feed head without locks (on Citus, over every shard); a
   * tenant the sink never published starts at the start of its retained log. Each row carries the
   * feed's head as {@link dev.lvg.feed.FeedLog#head} reads it, so that the run reads its pages up
   * to there without reading it again.
   */
  static final String DUE =
      """
      SELECT (SELECT epoch FROM feed_epoch) AS epoch, h.tenant_id, t.name, h.last_position,
             h.expired_through,
             COALESCE(c.published_through, h.expired_through) AS published_through,
             COALESCE(c.attempted_through, 0) AS attempted_through
      FROM feed_heads h JOIN tenants t ON t.id = h.tenant_id
      LEFT JOIN feed_sink_cursors c ON c.tenant_id = h.tenant_id AND c.sink = $1
      WHERE h.last_position > COALESCE(c.published_through, h.expired_through)
        AND ($2::text[] IS NULL OR t.name = ANY($2))
        AND (NOT $3::boolean OR EXISTS (SELECT 1 FROM feed_sink_tenants s
                                        WHERE s.tenant_id = h.tenant_id AND s.sink = $1))
      ORDER BY h.tenant_id LIMIT 1000""";

  /** Tenant $1's cursor of sink $2 moved to $3 (never back, whoever writes it). */
  static final String PUBLISHED =
      """
      INSERT INTO feed_sink_cursors (tenant_id, sink, published_through) VALUES ($1, $2, $3)
      ON CONFLICT (tenant_id, sink)
      DO UPDATE SET published_through = GREATEST(feed_sink_cursors.published_through, $3)""";

  /**
   * Tenant $1's events of sink $2 up to $4 are about to be sent, the cursor standing at $3: whoever
   * publishes from a cursor below that sends some of them again.
   */
  static final String ATTEMPTED =
      """
      INSERT INTO feed_sink_cursors (tenant_id, sink, published_through, attempted_through)
      VALUES ($1, $2, $3, $4)
      ON CONFLICT (tenant_id, sink)
      DO UPDATE SET attempted_through = GREATEST(feed_sink_cursors.attempted_through, $4)""";

  /** Gives up sink $1's lease held by $2. */
  static final String RELEASE = "DELETE FROM feed_sink_leases WHERE sink = $1 AND owner = $2";
}
