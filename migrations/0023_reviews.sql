-- Review rules and their queue (issue 51). A rule names one question as written (its fingerprint is the one
-- calibrations use) and which of the account's decides on it are kept for a person to label; its mode is its
-- creator's (a test key's sees only test decides). Kept items are customer content: 30 days, deleted with the rule
-- and with the account, their bytes counted against the account's evaluation storage cap.
CREATE TABLE IF NOT EXISTS review_rules (
  id                text PRIMARY KEY,                      -- rrule_<ULID>
  account_id        text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  mode              text NOT NULL CHECK (mode IN ('live', 'test')),
  question          text NOT NULL,                         -- the definition as written, JSON text, order kept
  fingerprint       text NOT NULL,                         -- SHA-256 hex of `question`
  model             text,                                  -- as given (exact version or alias); null: any
  abstained         boolean NOT NULL,
  below_confidence  double precision,
  sample_rate       double precision NOT NULL,
  auto_apply        boolean NOT NULL DEFAULT false,
  kept              integer NOT NULL DEFAULT 0,            -- items kept so far (the per-rule cap counts these)
  -- The loop (POST /v1/review-rules/{id}/evaluations): the last evaluation made from the labels, the calibration
  -- fitted on it once done, and where that stands.
  loop_evaluation   text,
  loop_calibration  text,
  loop_status       text NOT NULL DEFAULT 'none'
                    CHECK (loop_status IN ('none', 'evaluating', 'fitting', 'fitted', 'applied', 'failed')),
  loop_error        text,
  created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS review_rules_account ON review_rules (account_id, id DESC);
CREATE INDEX IF NOT EXISTS review_rules_evaluating ON review_rules (account_id) WHERE loop_status = 'evaluating';

CREATE TABLE IF NOT EXISTS reviews (
  id             text PRIMARY KEY,                         -- rev_<ULID>
  rule_id        text NOT NULL REFERENCES review_rules (id) ON DELETE CASCADE,
  account_id     text NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  request_id     text NOT NULL,
  model          text NOT NULL,                            -- the exact version that answered
  question_id    text NOT NULL,                            -- the question's id in that decide
  question       text NOT NULL,                            -- the question as the decide wrote it, JSON text
  state          text NOT NULL,                            -- the decide's state, JSON text, order kept
  answer         text NOT NULL,                            -- the answer as the decide gave it, JSON text
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'labelled', 'skipped')),
  label          text,                                     -- JSON text: an option or level label, or a boolean
  claimed_by     text,                                     -- who holds the short claim of `next`
  claimed_until  timestamptz,
  bytes          bigint NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  reviewed_at    timestamptz,
  expires_at     timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS reviews_rule ON reviews (rule_id, id DESC);
CREATE INDEX IF NOT EXISTS reviews_account ON reviews (account_id, id DESC);
CREATE INDEX IF NOT EXISTS reviews_expires ON reviews (expires_at);

-- Bumped whenever the account's review rules change; read with the key (≤ 1 s cache), so a decide of an account
-- that never had a rule does no extra work, and one that did reloads its rules only after a change.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS review_rules_generation bigint NOT NULL DEFAULT 0;
