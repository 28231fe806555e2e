-- A version being finalized holds its slot as an uncommitted row of an open transaction, so rows
-- are never pending any more. Rows left pending by an earlier release are rolled back.
DELETE FROM table_versions WHERE pending_until IS NOT NULL;
DROP INDEX table_versions_pending;
ALTER TABLE table_versions DROP COLUMN pending_until;
