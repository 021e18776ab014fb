-- Watch each question (issue 52): the account's questions as written and their answers' aggregates per hour and
-- exact version. Only definitions and counts are kept, never states; kept as long as the usage roll-ups (the
-- account's life). Written by the usage event's one statement (workers/stores/usage.ts), so a decide adds no
-- round trip; a replay or an error adds nothing.

-- A question as the caller wrote it (workers/decide/question-fingerprint.ts), per account and mode.
CREATE TABLE IF NOT EXISTS questions (
  account_id          text NOT NULL,
  mode                text NOT NULL,                    -- live | test: a test key never moves a live question
  id                  text NOT NULL,                    -- qst_<26 Crockford base32 of the fingerprint>
  fingerprint         text NOT NULL,                    -- SHA-256 hex of the definition (the calibrations')
  type                text NOT NULL,                    -- check | pick | rate
  definition          text NOT NULL,                    -- the definition's JSON text, its order kept
  first_asked         timestamptz NOT NULL,
  last_asked          timestamptz NOT NULL,
  PRIMARY KEY (account_id, mode, id)
);

-- One row per account × mode × question × exact version × UTC hour: answer count, the answer mix (counts per
-- option or level in order; a check's [no, yes]), a check's ten-bin histogram of P(yes) and its sum, the sum of
-- confidence, abstentions.
CREATE TABLE IF NOT EXISTS question_hourly (
  account_id          text NOT NULL,
  mode                text NOT NULL,
  question_id         text NOT NULL,
  model               text NOT NULL,
  hour                timestamptz NOT NULL,
  answers             bigint NOT NULL,
  mix                 bigint[] NOT NULL,
  p_bins              bigint[],
  p_sum               double precision NOT NULL DEFAULT 0,
  confidence_sum      double precision NOT NULL,
  abstained           bigint NOT NULL,
  PRIMARY KEY (account_id, mode, question_id, hour, model)
);

-- Element-wise sum of two count arrays (either may be NULL), and its aggregate.
CREATE OR REPLACE FUNCTION question_add_counts(a bigint[], b bigint[]) RETURNS bigint[]
LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN a IS NULL THEN b WHEN b IS NULL THEN a ELSE
    (SELECT array_agg(coalesce(x, 0) + coalesce(y, 0) ORDER BY i) FROM unnest(a, b) WITH ORDINALITY AS t(x, y, i))
  END
$$;

CREATE OR REPLACE AGGREGATE question_sum_counts(bigint[]) (SFUNC = question_add_counts, STYPE = bigint[]);

-- A question's drift settings and, per exact version, whether its last evaluation was above the threshold (one
-- `question.drifted` event per crossing; re-armed when it drops below).
CREATE TABLE IF NOT EXISTS question_drift (
  account_id          text NOT NULL,
  mode                text NOT NULL,
  question_id         text NOT NULL,
  threshold           double precision,                 -- NULL: the default
  reference_since     timestamptz,                      -- a reset: the reference is the first full week from here
  PRIMARY KEY (account_id, mode, question_id)
);

CREATE TABLE IF NOT EXISTS question_drift_versions (
  account_id          text NOT NULL,
  mode                text NOT NULL,
  question_id         text NOT NULL,
  model               text NOT NULL,
  above               boolean NOT NULL,
  value               double precision,
  evaluated_at        timestamptz NOT NULL,
  -- The reference read from the active calibration's evaluation (its answers with the calibration applied), kept
  -- per calibration id so the evaluation is read once.
  reference_calibration text,
  reference_counts    bigint[],
  PRIMARY KEY (account_id, mode, question_id, model)
);

-- Account events that are not a batch's (question.drifted) carry their payload from the start.
ALTER TABLE webhook_deliveries ALTER COLUMN batch_id DROP NOT NULL;

-- A batch line's answers as counts, kept until its usage event is written (then they are in the aggregates):
-- batch lines are decides too.
ALTER TABLE batch_lines ADD COLUMN IF NOT EXISTS questions jsonb;
