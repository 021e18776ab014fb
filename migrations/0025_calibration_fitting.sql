-- Large fits in the background (issue 49): a create whose evaluation is above the in-request bound stores the
-- calibration at once as `fitting` (inactive, its fitted fields null) and the account's runner fits it; it ends
-- `fitted` (active, replacing the question's previous one as a synchronous create does) or `failed` with the
-- error a synchronous create would have answered (`error`, JSON text {"code","param","message"}). `attempts`
-- counts the runner's tries (a fit cut short by a crash is tried again, at most 3 times). A fitting one deleted
-- before it finishes keeps `fitting` with `deactivated_at` set and is never fitted. Existing rows are `fitted`.
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS status text NOT NULL DEFAULT 'fitted'
  CHECK (status IN ('fitting', 'fitted', 'failed'));
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS error text;
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS attempts integer NOT NULL DEFAULT 0;
ALTER TABLE calibrations ALTER COLUMN question DROP NOT NULL;
ALTER TABLE calibrations ALTER COLUMN fingerprint DROP NOT NULL;
ALTER TABLE calibrations ALTER COLUMN method DROP NOT NULL;
ALTER TABLE calibrations ALTER COLUMN map DROP NOT NULL;
ALTER TABLE calibrations ALTER COLUMN n DROP NOT NULL;
ALTER TABLE calibrations ALTER COLUMN metrics DROP NOT NULL;
ALTER TABLE calibrations ADD CONSTRAINT calibrations_fitted_whole CHECK (status <> 'fitted' OR (
  question IS NOT NULL AND fingerprint IS NOT NULL AND method IS NOT NULL AND map IS NOT NULL AND n IS NOT NULL
  AND metrics IS NOT NULL));
-- Only a fitted calibration ever answers a decide.
ALTER TABLE calibrations ADD CONSTRAINT calibrations_active_fitted CHECK (NOT active OR status = 'fitted');
-- One fit under way per (account, evaluation, question, mode): a second create while it runs answers with it.
CREATE UNIQUE INDEX IF NOT EXISTS calibrations_one_fitting
  ON calibrations (account_id, evaluation_id, question_id, mode) WHERE status = 'fitting' AND deactivated_at IS NULL;
