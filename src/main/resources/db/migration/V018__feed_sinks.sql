-- Sinks publish the change feed into brokers from the log: for each sink and tenant the last
-- position published, and for each sink a lease, so that one gateway publishes it at a time and
-- another takes it over once the holder stops renewing.
CREATE TABLE feed_sink_cursors (
  tenant_id         BIGINT NOT NULL,
  sink              TEXT NOT NULL,
  published_through BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, sink)
);

CREATE TABLE feed_sink_leases (
  sink        TEXT PRIMARY KEY,
  owner       TEXT NOT NULL,
  lease_until TIMESTAMPTZ NOT NULL
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_distributed_table('feed_sink_cursors', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_reference_table('feed_sink_leases');
  END IF;
END
$$;
