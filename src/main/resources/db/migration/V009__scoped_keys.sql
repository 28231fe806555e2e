-- Credentials with rights. Each API key gets an id operators see (never the secret), the rights it
-- grants (read: lists, describes, existence checks; write: every change), an optional expiry and
-- description, and when a gateway last resolved it. A tenant can be disabled: all of its
-- credentials are then refused with 403.
ALTER TABLE tenants ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE api_keys ADD COLUMN key_id TEXT;
ALTER TABLE api_keys ADD COLUMN scopes TEXT[] NOT NULL DEFAULT ARRAY['read', 'write'];
ALTER TABLE api_keys ADD COLUMN expires_at TIMESTAMPTZ;
ALTER TABLE api_keys ADD COLUMN description TEXT;
ALTER TABLE api_keys ADD COLUMN last_used_at TIMESTAMPTZ;
UPDATE api_keys SET key_id = 'k_' || substr(key_hash, 1, 24);
ALTER TABLE api_keys ALTER COLUMN key_id SET NOT NULL;
CREATE UNIQUE INDEX api_keys_key_id ON api_keys (key_id);
