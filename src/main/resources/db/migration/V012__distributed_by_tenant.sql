-- On PostgreSQL with the Citus extension: tenants, their API keys and the migration history are
-- copied to every node (authentication reads keys by hash before it knows a tenant), and every
-- other table is spread by tenant, colocated, so that all of a tenant's rows live on one node.
-- On PostgreSQL without Citus this changes nothing.
DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_reference_table('tenants');
    PERFORM create_reference_table('api_keys');
    PERFORM create_reference_table('schema_migrations');
    PERFORM create_distributed_table('namespaces', 'tenant_id');
    PERFORM create_distributed_table('lance_tables', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('table_versions', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('table_branches', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('table_drops', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('transactions', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('audit_events', 'tenant_id', colocate_with => 'namespaces');
  END IF;
END
$$;
