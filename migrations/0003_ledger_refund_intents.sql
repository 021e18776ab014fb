-- Refunds the Worker could not hand to an account's ledger Durable Object (both attempts failed): kept here
-- until the ledger applies them at its next alarm (after its next write), so a failed call's charge is never
-- kept. The ledger's refund is idempotent by request id, so applying an intent twice moves nothing twice.

CREATE TABLE IF NOT EXISTS ledger_refund_intents (
  request_id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  created_at TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS ledger_refund_intents_account ON ledger_refund_intents (account_id);
