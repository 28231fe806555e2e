-- Webhooks: each endpoint of a tenant gets the tenant's change feed pushed to it, one event at a
-- time in position order, at least once. Its delivery state lives here, so it survives a gateway
-- restart: delivered_through is the last position handled (delivered, skipped by the endpoint's
-- types or dead-lettered); attempts and next_attempt_at the retries of the next event. A gateway
-- leases an endpoint before it delivers (lease_owner, lease_until), so one delivery is in flight
-- per endpoint across all gateways. Secrets are Standard Webhooks secrets (whsec_ and base64);
-- after a rotation the previous one also signs until previous_secret_until.
CREATE TABLE webhooks (
  tenant_id             BIGINT NOT NULL,
  id                    TEXT NOT NULL,
  url                   TEXT NOT NULL,
  event_types           TEXT[],
  secret                TEXT NOT NULL,
  previous_secret       TEXT,
  previous_secret_until TIMESTAMPTZ,
  disabled_reason       TEXT,
  delivered_through     BIGINT NOT NULL,
  attempts              INT NOT NULL DEFAULT 0,
  next_attempt_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
  last_error            TEXT,
  lease_owner           TEXT,
  lease_until           TIMESTAMPTZ,
  created_at            TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);

-- Events an endpoint never accepted within its attempts: kept for the operator to see (and the
-- event itself stays in the feed until it expires).
CREATE TABLE webhook_dead_letters (
  tenant_id  BIGINT NOT NULL,
  webhook_id TEXT NOT NULL,
  position   BIGINT NOT NULL,
  attempts   INT NOT NULL,
  last_error TEXT NOT NULL,
  at         TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, webhook_id, position)
);

DO $$
BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    PERFORM create_distributed_table('webhooks', 'tenant_id', colocate_with => 'namespaces');
    PERFORM create_distributed_table('webhook_dead_letters', 'tenant_id', colocate_with => 'namespaces');
  END IF;
END
$$;
