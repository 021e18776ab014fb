-- Scheduled downgrades (issue 16): a change to a cheaper plan at the end of the current period, carried out
-- by a Stripe Subscription Schedule. The cheaper plan's seat is held by a `downgrade` seat hold (ref = this
-- row's id) from scheduling until the change takes effect (the hold becomes the subscription's seat) or is
-- cancelled (the hold is released).
CREATE TABLE IF NOT EXISTS subscription_downgrades (
  id text PRIMARY KEY,                                   -- 'sdg_' + ULID
  account_id text NOT NULL REFERENCES accounts (id),
  subscription_id text NOT NULL,                         -- Stripe 'sub_…'
  from_plan_id text NOT NULL,
  plan_id text NOT NULL,
  -- `pending` while Stripe is asked, `scheduled` once the schedule exists, then `completed` (the
  -- subscription moved to `plan_id`) or `canceled` (released before it took effect).
  status text NOT NULL CHECK (status IN ('pending', 'scheduled', 'completed', 'canceled')),
  schedule_id text UNIQUE,                               -- Stripe 'sub_sched_…'
  effective_at timestamptz,                              -- the current period's end, when the change happens
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- One downgrade in flight per account.
CREATE UNIQUE INDEX IF NOT EXISTS subscription_downgrades_live ON subscription_downgrades (account_id)
  WHERE status IN ('pending', 'scheduled');

-- The end of the subscription's current period as Stripe last reported it (shown in the console), and when
-- Stripe created it: an account's newest subscription holds its seat, an older one is cancelled (an upgrade
-- bought through a new checkout).
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS current_period_end timestamptz;
ALTER TABLE subscriptions ADD COLUMN IF NOT EXISTS started_at timestamptz;
