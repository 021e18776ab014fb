-- The Postgres copy of the ledger journal is idempotent per account: each account's ledger (a Durable
-- Object) keys its entries by kind + ref, so the same operator payment id credited to two accounts is two
-- entries, and both must reach Postgres (with UNIQUE (kind, ref) the second was silently dropped).
ALTER TABLE ledger_journal ADD CONSTRAINT ledger_journal_account_kind_ref_key UNIQUE (account_id, kind, ref);
ALTER TABLE ledger_journal DROP CONSTRAINT IF EXISTS ledger_journal_kind_ref_key;
