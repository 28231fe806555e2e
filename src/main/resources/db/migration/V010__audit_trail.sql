-- The audit trail: one row per state change, inserted by the statement or transaction that makes
-- the change, so a change and its record commit together or not at all. Who acted is a credential
-- name (an API key's id, a token's subject, "operator" for the admin key), never a secret.
-- Readers page in (xact, seq) order and see only rows of transactions older than every transaction
-- still running, so a reader that follows the pages never skips a row that commits late.
CREATE TABLE audit_events (
  tenant_id      BIGINT NOT NULL,
  xact           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq            BIGINT GENERATED ALWAYS AS IDENTITY,
  at             TIMESTAMPTZ NOT NULL DEFAULT statement_timestamp(),
  credential     TEXT NOT NULL,
  operation      TEXT NOT NULL,
  object         TEXT NOT NULL DEFAULT '',
  version        BIGINT,
  transaction_id UUID,
  request_id     TEXT,
  context        JSONB NOT NULL DEFAULT '{}',
  PRIMARY KEY (tenant_id, xact, seq)
);
