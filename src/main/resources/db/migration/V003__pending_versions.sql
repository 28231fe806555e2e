-- A version being finalized on storage is claimed first as a pending row (invisible to reads and
-- held until pending_until); it becomes committed (pending_until NULL) once its final manifest
-- exists. An expired pending row belongs to an attempt that died and is rolled back.
ALTER TABLE table_versions ADD COLUMN pending_until TIMESTAMPTZ;
CREATE INDEX table_versions_pending ON table_versions (pending_until) WHERE pending_until IS NOT NULL;
