-- The audit trail: the changes each statement or transaction makes, inserted by that statement or
-- transaction, so a change and its record commit together or not at all. A row holds the changes
-- of one operation of one tenant, as parallel arrays, one element per change: one element for
-- most operations, one per version for a batch of version creates (one row per batch, not per
-- version, keeps the commit path fast). Who acted is a credential name (an API key's id, a token's
-- subject, "operator" for the admin key), never a secret. Readers page in (xact, seq, element)
-- order and see only rows of transactions older than every transaction still running, so a reader
-- that follows the pages never skips a change that commits late.
CREATE TABLE audit_events (
  tenant_id      BIGINT NOT NULL,
  xact           xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq            BIGINT GENERATED ALWAYS AS IDENTITY,
  at             TIMESTAMPTZ NOT NULL DEFAULT statement_timestamp(),
  operation      TEXT NOT NULL,
  credential     TEXT[] NOT NULL,
  object         TEXT[] NOT NULL,
  version        BIGINT[] NOT NULL,
  transaction_id UUID[] NOT NULL,
  request_id     TEXT[] NOT NULL,
  context        TEXT[] NOT NULL,
  PRIMARY KEY (tenant_id, xact, seq)
)
-- A batch's row stays in the table's own pages up to a page's size: moving it to TOAST storage
-- (compressed, out of line) would cost more than the rest of the row's insert.
WITH (toast_tuple_target = 8160);
