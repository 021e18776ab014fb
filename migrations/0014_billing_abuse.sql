-- Issue 45 (abuse), billing: how many times a plan checkout's seat hold was renewed (a new Checkout Session
-- for the same account and plan while the hold was live). Bounded (workers/billing/subscription-checkout.ts),
-- so renewing every 55 minutes cannot keep a seat without paying.
ALTER TABLE seat_holds ADD COLUMN IF NOT EXISTS renewals int NOT NULL DEFAULT 0;

-- Chargebacks (issue 45 item 7): a top-up's Stripe payment intent, recorded when it is credited, finds the
-- top-up a `charge.dispute.created` or `charge.refunded` is about; the ledger journal gains the `chargeback`
-- kind (the credit given back, once per Stripe event; the sign follows from the kind, as for `debit`).
ALTER TABLE top_ups ADD COLUMN IF NOT EXISTS payment_intent_id text;
CREATE UNIQUE INDEX IF NOT EXISTS top_ups_payment_intent_idx ON top_ups (payment_intent_id)
  WHERE payment_intent_id IS NOT NULL;
ALTER TABLE ledger_journal DROP CONSTRAINT IF EXISTS ledger_journal_kind_check;
ALTER TABLE ledger_journal ADD CONSTRAINT ledger_journal_kind_check
  CHECK (kind IN ('debit', 'refund', 'credit', 'chargeback'));
