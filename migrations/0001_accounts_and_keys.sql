-- Accounts and API keys. Secrets are never stored: only their SHA-256 (hex) and a display prefix.
CREATE TABLE accounts (
  id text PRIMARY KEY,                                  -- 'acc_' + ULID
  email text UNIQUE,
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  created_at timestamptz NOT NULL DEFAULT now(),
  rpm_limit int,
  tpm_limit int
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,                                  -- 'key_' + ULID
  account_id text NOT NULL REFERENCES accounts (id),
  mode text NOT NULL CHECK (mode IN ('live', 'test')),
  secret_sha256 text NOT NULL UNIQUE,
  prefix text NOT NULL,
  scopes text[] NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  rpm_limit int,
  tpm_limit int
);

CREATE INDEX api_keys_account_id_idx ON api_keys (account_id);
