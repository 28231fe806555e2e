-- A dropped table leaves the catalog at once. Its row stays, marked, so that its location is never
-- handed to another table; a deletion job removes its data, versions and branches off the request
-- path and survives a restart.
ALTER TABLE lance_tables ADD COLUMN dropped_at TIMESTAMPTZ;
CREATE INDEX lance_tables_location ON lance_tables (tenant_id, location);
CREATE TABLE table_drops (
  tenant_id    BIGINT NOT NULL,
  table_id     BIGINT NOT NULL,
  location     TEXT NOT NULL,
  requested_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, table_id)
);
