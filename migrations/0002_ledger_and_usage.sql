-- Money path: the ledger journal (copied from each account's AccountLedger Durable Object, idempotent by
-- kind + ref) and one usage event per decide call (errors included).

CREATE TABLE IF NOT EXISTS ledger_journal (
  id BIGSERIAL PRIMARY KEY,
  kind TEXT NOT NULL CHECK (kind IN ('debit', 'refund', 'credit')),
  -- request id for debit and refund, payment id for credit
  ref TEXT NOT NULL,
  account_id TEXT NOT NULL,
  -- micro-cents moved on the balance (always >= 0; the sign follows from kind)
  amount_micro_cents BIGINT NOT NULL CHECK (amount_micro_cents >= 0),
  tokens BIGINT NOT NULL DEFAULT 0,
  allowance_tokens BIGINT NOT NULL DEFAULT 0,
  test BOOLEAN NOT NULL DEFAULT FALSE,
  at TIMESTAMPTZ NOT NULL,
  UNIQUE (kind, ref)
);
CREATE INDEX IF NOT EXISTS ledger_journal_account_at ON ledger_journal (account_id, at);

CREATE TABLE IF NOT EXISTS usage_events (
  request_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  key_id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('live', 'test')),
  -- exact version that answered, or the requested name when the call ended before dispatch
  model TEXT,
  served_by TEXT CHECK (served_by IN ('gpu', 'fallback')),
  input_tokens BIGINT NOT NULL DEFAULT 0,
  state_tokens BIGINT NOT NULL DEFAULT 0,
  question_tokens BIGINT NOT NULL DEFAULT 0,
  charge_micro_cents BIGINT NOT NULL DEFAULT 0,
  unit_price_micro_cents INTEGER NOT NULL DEFAULT 0,
  tier TEXT,
  status INTEGER NOT NULL,
  -- null on success, the error code otherwise
  error_code TEXT,
  replayed BOOLEAN NOT NULL DEFAULT FALSE,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS usage_events_account_created ON usage_events (account_id, created_at);
CREATE INDEX IF NOT EXISTS usage_events_key_created ON usage_events (key_id, created_at);
