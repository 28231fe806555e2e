-- Rights below the tenant. A grant gives a grantee a right (read, write or manage) on a namespace's
-- subtree (path names the namespace; '{}' the whole tenant) or on one table (on_table: path is the
-- table's namespace and then its name). A grantee is 'key:<key id>', 'role:<name>',
-- 'claim:<value>' (a value of the bearer tokens' role claim) or 'cert:<identity>' (a client
-- certificate's subject or SAN). Roles group grants: role_members puts a key, a claim value or a
-- certificate identity in a role. Both are read by grantee or member, one tenant at a time.
CREATE TABLE grants (
  tenant_id  BIGINT NOT NULL,
  grant_id   TEXT NOT NULL,
  grantee    TEXT NOT NULL,
  privilege  TEXT NOT NULL CHECK (privilege IN ('read', 'write', 'manage')),
  path       TEXT[] NOT NULL,
  on_table   BOOLEAN NOT NULL CHECK (NOT on_table OR cardinality(path) > 0),
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, grant_id),
  UNIQUE (tenant_id, grantee, privilege, path, on_table)
);

CREATE TABLE role_members (
  tenant_id  BIGINT NOT NULL,
  role       TEXT NOT NULL,
  member     TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, role, member)
);
CREATE INDEX role_members_member ON role_members (tenant_id, member);

-- Client certificates (mutual TLS): an identity (a certificate's subject, RFC 2253, or one of its
-- subject alternative names as dns:, ip:, uri: or email:) registered for a tenant acts as the
-- grantee 'cert:<identity>'. A certificate whose SHA-256 fingerprint is revoked is refused, whatever
-- its identity. Both are read before a request knows its tenant, as API keys are.
CREATE TABLE client_certificates (
  identity   TEXT PRIMARY KEY,
  tenant_id  BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX client_certificates_tenant ON client_certificates (tenant_id);

CREATE TABLE revoked_certificates (
  fingerprint TEXT PRIMARY KEY,
  tenant_id   BIGINT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  revoked_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- A webhook may act as a grantee: it is then sent only the events of what that grantee may read.
ALTER TABLE webhooks ADD COLUMN grantee TEXT;

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_distributed_table('grants', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('role_members', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_reference_table('client_certificates');
    PERFORM create_reference_table('revoked_certificates');
  END IF;
END
$$;
