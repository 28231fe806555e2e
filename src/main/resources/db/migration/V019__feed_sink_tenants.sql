-- The tenants a sink publishes when the gateways publish only those the admin API selects
-- (LVG_FEED_SINK_TENANTS=@admin).
CREATE TABLE feed_sink_tenants (
  tenant_id BIGINT NOT NULL,
  sink      TEXT NOT NULL,
  PRIMARY KEY (tenant_id, sink)
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_distributed_table('feed_sink_tenants', 'tenant_id', colocate_with => 'namespaces');
  END IF;
END
$$;

-- How far a sink's holder had sent a tenant's events when it last began a page: events between the
-- cursor and there are sent again by the next, and counted as such.
ALTER TABLE feed_sink_cursors ADD COLUMN attempted_through BIGINT NOT NULL DEFAULT 0;
