-- Tenants and their API keys. Keys are stored only as the hex SHA-256 of the key.
CREATE TABLE tenants (
  id         BIGSERIAL PRIMARY KEY,
  name       TEXT NOT NULL UNIQUE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  key_hash   TEXT PRIMARY KEY,
  tenant_id  BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id);

-- Namespaces of a tenant; the root namespace (path '{}') always exists and is not stored.
CREATE TABLE namespaces (
  tenant_id  BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  path       TEXT[] NOT NULL CHECK (cardinality(path) > 0),
  properties JSONB NOT NULL DEFAULT '{}',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, path)
);

CREATE TABLE lance_tables (
  id         BIGSERIAL PRIMARY KEY,
  tenant_id  BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  namespace  TEXT[] NOT NULL,
  name       TEXT NOT NULL,
  location   TEXT NOT NULL,
  properties JSONB NOT NULL DEFAULT '{}',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, namespace, name)
);

-- One row per committed table version. The primary key is the put-if-not-exists claim.
-- requested_path is the manifest path the client sent, so a retry of the same request is
-- recognised even after the path has been finalized.
CREATE TABLE table_versions (
  tenant_id        BIGINT NOT NULL,
  table_id         BIGINT NOT NULL REFERENCES lance_tables (id) ON DELETE CASCADE,
  branch           TEXT NOT NULL,
  version          BIGINT NOT NULL CHECK (version >= 0),
  manifest_path    TEXT NOT NULL,
  requested_path   TEXT NOT NULL,
  manifest_size    BIGINT CHECK (manifest_size >= 0),
  e_tag            TEXT,
  naming_scheme    TEXT,
  metadata         JSONB,
  transaction_id   UUID NOT NULL,
  timestamp_millis BIGINT NOT NULL,
  PRIMARY KEY (tenant_id, table_id, branch, version)
);
