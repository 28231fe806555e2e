-- The row that starts a version chain (the first of its table and branch while the chain is empty)
-- is marked, and only one row per chain may carry the mark: two concurrent first commits with
-- different numbers cannot both land, the loser's insert claims nothing.
ALTER TABLE table_versions ADD COLUMN starts_chain BOOLEAN;
CREATE UNIQUE INDEX table_versions_one_chain_start ON table_versions (tenant_id, table_id, branch)
  WHERE starts_chain;
