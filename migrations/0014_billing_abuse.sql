-- Issue 45 (abuse), billing: how many times a plan checkout's seat hold was renewed (a new Checkout Session
-- for the same account and plan while the hold was live). Bounded (workers/billing/subscription-checkout.ts),
-- so renewing every 55 minutes cannot keep a seat without paying.
ALTER TABLE seat_holds ADD COLUMN IF NOT EXISTS renewals int NOT NULL DEFAULT 0;
