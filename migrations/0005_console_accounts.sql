-- Console accounts: e-mail sign-in codes, console and app sessions, account settings (content logging),
-- the content log itself, and operator switches. Secrets are never stored: codes as an HMAC keyed with the
-- console secret, session tokens as SHA-256 (hex).

-- Opt-in content logging: NULL = off (the default), else the retention in days (1 to 30).
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS content_log_days int
  CHECK (content_log_days IS NULL OR content_log_days BETWEEN 1 AND 30);
CREATE UNIQUE INDEX IF NOT EXISTS accounts_email_lower_idx ON accounts (lower(email));

-- The one live sign-in code of an address (a new code replaces the old one). `attempts` counts every try.
CREATE TABLE IF NOT EXISTS sign_in_codes (
  email text PRIMARY KEY,                               -- lower-cased
  code_hmac text NOT NULL,                              -- HMAC-SHA-256(console secret, email + code), hex
  attempts int NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);

CREATE TABLE IF NOT EXISTS console_sessions (
  token_sha256 text PRIMARY KEY,                        -- SHA-256 (hex) of `svc_ses_…`
  account_id text NOT NULL REFERENCES accounts (id),
  kind text NOT NULL CHECK (kind IN ('cookie', 'app')), -- cookie: browser (+ CSRF); app: bearer (IdP exchange)
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL                       -- slides to 30 days after each use
);
CREATE INDEX IF NOT EXISTS console_sessions_account_idx ON console_sessions (account_id);
CREATE INDEX IF NOT EXISTS console_sessions_expires_idx ON console_sessions (expires_at);

-- Decide request content of accounts that opted in, deleted by the scheduled job after `delete_after`.
CREATE TABLE IF NOT EXISTS content_logs (
  request_id text PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  key_id text,                                          -- null for console playground calls
  request jsonb NOT NULL,                               -- the decide body as received (state + questions)
  decision jsonb,                                       -- the Decision answered (answers, usage)
  created_at timestamptz NOT NULL DEFAULT now(),
  delete_after timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS content_logs_delete_after_idx ON content_logs (delete_after);
CREATE INDEX IF NOT EXISTS content_logs_account_idx ON content_logs (account_id, created_at);

-- Operator switches (e.g. console maintenance): one row per switch, read with a ≤1 s isolate cache.
CREATE TABLE IF NOT EXISTS operator_switches (
  name text PRIMARY KEY,
  enabled boolean NOT NULL,
  retry_after_seconds int NOT NULL DEFAULT 60,
  updated_at timestamptz NOT NULL DEFAULT now()
);
