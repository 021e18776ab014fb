-- Batches (issue 42): a JSONL upload of decides run in the background at batch priority. The lines and the
-- results of finished chunks are in R2 (batches/<id>/input/<chunk>.jsonl, batches/<id>/results/<chunk>.jsonl);
-- Postgres keeps the batch and the lines of the chunks not yet written out, one row each, so a crash anywhere
-- repeats only a line that was never counted, and never charges one twice.
CREATE TABLE IF NOT EXISTS batches (
  id                  text PRIMARY KEY,                 -- batch_<ULID>
  account_id          text NOT NULL,
  key_id              text NOT NULL,                    -- the creating key, or console_<account> / playground_<account>
  mode                text NOT NULL CHECK (mode IN ('live', 'test')),
  model               text,                             -- the model every line names; null when they differ
  status              text NOT NULL CHECK (status IN ('queued', 'running', 'paused', 'completed', 'cancelled',
                                                      'expired', 'failed')),
  paused_reason       text CHECK (paused_reason IN ('insufficient_balance', 'test_daily_quota')),
  resumes_at          timestamptz,                      -- paused: when the runner tries again
  total               integer NOT NULL,
  done                integer NOT NULL DEFAULT 0,       -- lines answered (200), each counted once
  failed              integer NOT NULL DEFAULT 0,       -- lines finished with an error
  input_tokens        bigint NOT NULL DEFAULT 0,
  charge_micro_cents  bigint NOT NULL DEFAULT 0,
  chunks              integer NOT NULL,                 -- input objects in R2
  chunk_lines         integer[] NOT NULL,               -- lines per chunk, in order
  chunks_written      integer NOT NULL DEFAULT 0,       -- result objects written to R2 (a prefix of the chunks)
  bytes               bigint NOT NULL,                  -- the upload's size (the per-account storage cap)
  idempotency_key     text,
  body_sha256         text,
  failure_code        text,
  failure_message     text,
  created_at          timestamptz NOT NULL DEFAULT now(),
  started_at          timestamptz,
  finished_at         timestamptz,
  updated_at          timestamptz NOT NULL DEFAULT now(),
  expires_at          timestamptz NOT NULL,             -- created + 24 h: lines not run by then never run
  results_expire_at   timestamptz                       -- finished + 30 days
);
CREATE INDEX IF NOT EXISTS batches_account ON batches (account_id, id DESC);
CREATE INDEX IF NOT EXISTS batches_active ON batches (account_id, id) WHERE status IN ('queued', 'running', 'paused');
CREATE UNIQUE INDEX IF NOT EXISTS batches_idempotency ON batches (account_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE TABLE IF NOT EXISTS batch_lines (
  batch_id            text NOT NULL REFERENCES batches (id) ON DELETE CASCADE,
  line                integer NOT NULL,                 -- position in the upload, from 0
  chunk               integer NOT NULL,
  attempt             text,                             -- request id of the attempt that holds or answered it
  owed                text[] NOT NULL DEFAULT '{}',     -- earlier attempts whose debits, if any, are to be refunded
  faults              integer NOT NULL DEFAULT 0,       -- engine faults in a row
  status              integer,                          -- the result's HTTP status; null until finished
  result              text,                             -- the result line (JSON text)
  model               text,
  input_tokens        integer NOT NULL DEFAULT 0,
  state_tokens        integer NOT NULL DEFAULT 0,
  question_tokens     integer NOT NULL DEFAULT 0,
  charge_micro_cents  bigint NOT NULL DEFAULT 0,
  unit_price          bigint NOT NULL DEFAULT 0,
  tier                text,
  finished_at         timestamptz,
  usage_recorded      boolean NOT NULL DEFAULT false,
  PRIMARY KEY (batch_id, line)
);
CREATE INDEX IF NOT EXISTS batch_lines_open ON batch_lines (batch_id, line) WHERE status IS NULL OR NOT usage_recorded;

-- One webhook endpoint per account (console settings). The signing secret is never stored: it is derived from
-- CONSOLE_SECRET and the endpoint's id (HMAC), shown once when the endpoint is set.
CREATE TABLE IF NOT EXISTS webhook_endpoints (
  account_id          text PRIMARY KEY,
  id                  text NOT NULL,                    -- we_<ULID>; a new one (a new secret) each time it is set
  url                 text NOT NULL,
  created_at          timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS webhook_deliveries (
  id                  text PRIMARY KEY,                 -- evt_<ULID>, the event's id
  account_id          text NOT NULL,
  batch_id            text NOT NULL,
  type                text NOT NULL,
  payload             text,                             -- the event as sent (JSON text), fixed at its first attempt
  attempts            integer NOT NULL DEFAULT 0,
  next_at             timestamptz NOT NULL DEFAULT now(),
  last_status         integer,
  last_error          text,
  delivered_at        timestamptz,
  given_up_at         timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS webhook_deliveries_due ON webhook_deliveries (account_id, next_at)
  WHERE delivered_at IS NULL AND given_up_at IS NULL;
