-- Console billing (issue 16): top-ups through Stripe Checkout, subscriptions, seats, the waiting list.
-- Money is integer cents here (the ledger Durable Object holds the balance in micro-cents); nothing secret is
-- stored (idempotency keys only as SHA-256).

-- The account's billing currency: NULL until its first settled payment fixes it (docs/decisions.md, "Billing").
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS billing_currency text
  CHECK (billing_currency IS NULL OR billing_currency IN ('EUR', 'USD', 'GBP', 'INR'));

-- One row per top-up checkout, written BEFORE Stripe is asked (status `pending`), so the EUR 500 cap of the
-- first 30 days counts it at once. Open and pending rows count until `expires_at`; `processing` (a delayed
-- method such as SEPA direct debit, completed but not yet settled) and `paid` always count.
CREATE TABLE IF NOT EXISTS top_ups (
  id text PRIMARY KEY,                                   -- 'top_' + ULID (Stripe metadata top_up_id)
  account_id text NOT NULL REFERENCES accounts (id),
  credit_cents int NOT NULL CHECK (credit_cents BETWEEN 1000 AND 250000), -- net EUR credit, excl. VAT
  currency text NOT NULL CHECK (currency IN ('EUR', 'USD', 'GBP', 'INR')),
  price_minor int NOT NULL CHECK (price_minor > 0),      -- what Stripe charges, minor units, excl. VAT
  status text NOT NULL CHECK (status IN ('pending', 'open', 'processing', 'paid', 'expired', 'failed')),
  checkout_session_id text UNIQUE,
  url text,
  return_path text,
  idempotency_key_sha256 text,
  request_sha256 text,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  settled_at timestamptz,
  UNIQUE (account_id, idempotency_key_sha256)
);
CREATE INDEX IF NOT EXISTS top_ups_account_idx ON top_ups (account_id, created_at);

-- Stripe subscriptions as the webhooks last reported them.
CREATE TABLE IF NOT EXISTS subscriptions (
  id text PRIMARY KEY,                                   -- Stripe 'sub_…'
  account_id text NOT NULL REFERENCES accounts (id),
  plan_id text NOT NULL,
  status text NOT NULL,                                  -- Stripe's status
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS subscriptions_account_idx ON subscriptions (account_id);

-- A lock row per plan: seat claims lock it, then count live holds in a separate statement of the same
-- transaction (docs/decisions.md, "Seats"). The seat TOTAL is the catalogue's (schema/plans.ts), never here.
CREATE TABLE IF NOT EXISTS plan_seat_locks (plan_id text PRIMARY KEY);
INSERT INTO plan_seat_locks (plan_id) VALUES ('base'), ('hot'), ('fierce') ON CONFLICT DO NOTHING;

-- Who holds a seat: at most one hold per account and plan, and at most one `subscription` hold per account
-- (the account's one seat; an upgrade moves it). `checkout` (an open plan checkout, 1 hour) and `invitation`
-- (a waiting-list invitation, 72 hours) expire by `expires_at`; `downgrade` holds the cheaper plan's seat
-- while the current subscription runs out; `subscription` holds have no expiry.
CREATE TABLE IF NOT EXISTS seat_holds (
  account_id text NOT NULL REFERENCES accounts (id),
  plan_id text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('checkout', 'invitation', 'subscription', 'downgrade')),
  ref text,                                              -- checkout session or subscription id
  expires_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, plan_id)
);
CREATE UNIQUE INDEX IF NOT EXISTS seat_holds_one_subscription ON seat_holds (account_id)
  WHERE kind = 'subscription';
CREATE INDEX IF NOT EXISTS seat_holds_plan_idx ON seat_holds (plan_id);

-- The waiting list of a plan, first come first invited.
CREATE TABLE IF NOT EXISTS waiting_list (
  account_id text NOT NULL REFERENCES accounts (id),
  plan_id text NOT NULL,
  joined_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  invited_at timestamptz,
  PRIMARY KEY (account_id, plan_id)
);
CREATE INDEX IF NOT EXISTS waiting_list_plan_idx ON waiting_list (plan_id, joined_at);
