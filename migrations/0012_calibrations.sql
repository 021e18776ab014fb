-- Calibrations (issue 44): a map fitted on an evaluation's labelled answers of one question, applied to the
-- account's decides on that exact version whose question matches `fingerprint`. At most one active per
-- (account, version, fingerprint); a replaced or deleted one stays readable (and replays keep using it).
CREATE TABLE IF NOT EXISTS calibrations (
  id              text PRIMARY KEY,                      -- calib_<ULID>
  account_id      text NOT NULL,
  evaluation_id   text NOT NULL,                         -- no foreign key: it outlives the evaluation
  question_id     text NOT NULL,
  model           text NOT NULL,                         -- the exact version
  fingerprint     text NOT NULL,                         -- SHA-256 hex of `question`
  question        text NOT NULL,                         -- the definition as written, JSON text, key order kept
  method          text NOT NULL CHECK (method IN ('temperature', 'temperature_bias')),
  map             text NOT NULL,                         -- {"temperature","bias"} as JSON text, full precision
  n               integer NOT NULL,
  metrics         text NOT NULL,                         -- JSON text, field order kept
  active          boolean NOT NULL DEFAULT true,
  created_at      timestamptz NOT NULL DEFAULT now(),
  deactivated_at  timestamptz
);
CREATE UNIQUE INDEX IF NOT EXISTS calibrations_one_active ON calibrations (account_id, model, fingerprint)
  WHERE active;
CREATE INDEX IF NOT EXISTS calibrations_account ON calibrations (account_id, id DESC);

-- Bumped whenever the account's active calibrations change; read with the key (≤ 1 s cache), so a decide of an
-- account that never calibrated looks nothing up, and one that did reloads its maps only after a change.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS calibrations_generation bigint NOT NULL DEFAULT 0;
