-- Deregistering a table hides it (and its versions) but keeps the rows, so an operator can restore
-- it; the name becomes free again for a new table.
ALTER TABLE lance_tables ADD COLUMN deregistered_at TIMESTAMPTZ;
ALTER TABLE lance_tables DROP CONSTRAINT lance_tables_tenant_id_namespace_name_key;
CREATE UNIQUE INDEX lance_tables_live_name ON lance_tables (tenant_id, namespace, name)
  WHERE deregistered_at IS NULL;

-- Branches other than main. A branch's version chain continues from parent_version of
-- parent_branch: its first version is parent_version + 1.
CREATE TABLE table_branches (
  tenant_id      BIGINT NOT NULL,
  table_id       BIGINT NOT NULL REFERENCES lance_tables (id) ON DELETE CASCADE,
  name           TEXT NOT NULL,
  parent_branch  TEXT NOT NULL,
  parent_version BIGINT NOT NULL CHECK (parent_version >= 0),
  manifest_size  BIGINT NOT NULL DEFAULT 0,
  metadata       JSONB NOT NULL DEFAULT '{}',
  created_at     TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, table_id, name)
);
