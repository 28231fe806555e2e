-- The Lance transaction a version's manifest names (read from the manifest when the gateway
-- finalizes it; null in record mode and for manifests that name none). A branch holds each
-- transaction at most once: a second commit of the same transaction, rebased onto a newer version,
-- conflicts with the first. The tenant and the transaction lead the key, so DescribeTransaction
-- finds a transaction by its uuid alone.
ALTER TABLE table_versions ADD COLUMN lance_transaction UUID;
CREATE UNIQUE INDEX table_versions_lance_transaction
  ON table_versions (tenant_id, lance_transaction, table_id, branch)
  WHERE lance_transaction IS NOT NULL;
