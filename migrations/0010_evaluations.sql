-- Evaluations (issue 31): a labelled set scored in the background on the account's test quota. The items and
-- their answers are content the customer uploaded for this purpose only: kept until `expires_at` (30 days
-- after creation) or until the evaluation is deleted, never written to the content log.
CREATE TABLE IF NOT EXISTS evaluations (
  id              text PRIMARY KEY,                      -- eval_<ULID>
  account_id      text NOT NULL,
  key_id          text NOT NULL,                         -- the creating test key, or playground_<account> (console)
  name            text NOT NULL,
  model           text NOT NULL,                         -- the exact version pinned at creation
  status          text NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'done', 'cancelled', 'failed')),
  total           integer NOT NULL,
  done            integer NOT NULL DEFAULT 0,            -- items scored (each counted once, with its answer)
  input_tokens    bigint NOT NULL DEFAULT 0,             -- tokens of the scored items (the test usage)
  resumes_at      timestamptz,                           -- paused: when the daily test quota comes back
  failure_code    text,
  failure_message text,
  metrics         jsonb,                                 -- per question id, once done
  created_at      timestamptz NOT NULL DEFAULT now(),
  started_at      timestamptz,
  finished_at     timestamptz,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL
);
CREATE INDEX IF NOT EXISTS evaluations_account ON evaluations (account_id, id DESC);
CREATE INDEX IF NOT EXISTS evaluations_active ON evaluations (account_id, id)
  WHERE status IN ('queued', 'running', 'paused');
CREATE INDEX IF NOT EXISTS evaluations_expiry ON evaluations (expires_at);

CREATE TABLE IF NOT EXISTS evaluation_items (
  evaluation_id   text NOT NULL REFERENCES evaluations (id) ON DELETE CASCADE,
  idx             integer NOT NULL,                      -- position in the uploaded `items`
  request         text NOT NULL,                         -- {state, questions} as JSON text, key order kept
  expected        text NOT NULL,                         -- question id -> label / level / boolean, JSON text
  input_tokens    integer NOT NULL,
  state_tokens    integer NOT NULL,
  question_tokens integer NOT NULL,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'scoring', 'done')),
  attempt         text,                                  -- request id of the attempt that holds or scored it
  answers         text,                                  -- the engine's answers (Decision shape), JSON text
  calibration     text,
  scored_at       timestamptz,
  usage_recorded  boolean NOT NULL DEFAULT false,        -- its usage event is written (exactly once)
  PRIMARY KEY (evaluation_id, idx)
);
CREATE INDEX IF NOT EXISTS evaluation_items_open ON evaluation_items (evaluation_id, idx)
  WHERE status <> 'done' OR NOT usage_recorded;
