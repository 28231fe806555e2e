-- On PostgreSQL with the Citus extension (created before the gateway first starts): tenants, their
-- API keys and the migration history are copied to every node (authentication reads keys by hash
-- before it knows a tenant), and every other table is spread by tenant, colocated, so that all of
-- a tenant's rows live on one node and every statement of a request reaches one node. On
-- PostgreSQL without Citus this changes nothing.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    RETURN;
  END IF;
  PERFORM create_reference_table('tenants');
  PERFORM create_reference_table('api_keys');
  PERFORM create_reference_table('schema_migrations');
  -- A local table may not reference a distributed one: the key from branches to their table is
  -- made again once both are distributed.
  ALTER TABLE table_branches DROP CONSTRAINT table_branches_table_fkey;
  PERFORM create_distributed_table('namespaces', 'tenant_id');
  PERFORM create_distributed_table('lance_tables', 'tenant_id', colocate_with => 'namespaces');
  PERFORM create_distributed_table('table_versions', 'tenant_id', colocate_with => 'namespaces');
  PERFORM create_distributed_table('table_branches', 'tenant_id', colocate_with => 'namespaces');
  PERFORM create_distributed_table('table_drops', 'tenant_id', colocate_with => 'namespaces');
  PERFORM create_distributed_table('transactions', 'tenant_id', colocate_with => 'namespaces');
  PERFORM create_distributed_table('audit_events', 'tenant_id', colocate_with => 'namespaces');
  ALTER TABLE table_branches ADD CONSTRAINT table_branches_table_fkey
    FOREIGN KEY (tenant_id, table_id) REFERENCES lance_tables (tenant_id, id) ON DELETE CASCADE;
  -- Each audit row takes the transaction id of the node that stores it, so a tenant's pages, read
  -- on that node, compare transaction ids of one sequence (Citus computes an insert's defaults on
  -- the node that receives the statement; this trigger runs where the row is stored).
  PERFORM set_config('citus.enable_unsafe_triggers', 'on', true);
  CREATE FUNCTION audit_events_local_xact() RETURNS trigger LANGUAGE plpgsql AS $f$
  BEGIN
    NEW.xact := pg_current_xact_id();
    RETURN NEW;
  END
  $f$;
  CREATE TRIGGER audit_events_local_xact BEFORE INSERT ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_local_xact();
END
$$;
