-- Every transaction id the gateway answers can be described later. A version create's id is its
-- version row's; every other operation records its id here, in the transaction that does the work.
CREATE INDEX table_versions_transaction ON table_versions (tenant_id, transaction_id);
CREATE TABLE transactions (
  tenant_id  BIGINT NOT NULL,
  id         UUID NOT NULL,
  operation  TEXT NOT NULL,
  properties JSONB NOT NULL DEFAULT '{}',
  created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
