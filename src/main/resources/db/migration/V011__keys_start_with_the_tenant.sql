-- Every key and reference between a tenant's rows starts with the tenant, so that the rows of a
-- tenant can live together on one node of a distributed PostgreSQL (Citus) and every key is
-- checked there.
ALTER TABLE table_branches DROP CONSTRAINT table_branches_table_id_fkey;
ALTER TABLE lance_tables DROP CONSTRAINT lance_tables_pkey;
ALTER TABLE lance_tables ADD PRIMARY KEY (tenant_id, id);
ALTER TABLE table_branches ADD CONSTRAINT table_branches_table_fkey
  FOREIGN KEY (tenant_id, table_id) REFERENCES lance_tables (tenant_id, id) ON DELETE CASCADE;
