-- Calibration modes and retention (issue 50). A calibration gets the mode of its creator: a test key's is `test`
-- and answers only test decides; a live key's or the console's is `live`. Rows made before this were in force
-- for live decides, so they stay `live` (docs/decisions.md). One active per (account, version, fingerprint, mode).
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS mode text NOT NULL DEFAULT 'live'
  CHECK (mode IN ('live', 'test'));
DROP INDEX IF EXISTS calibrations_one_active;
CREATE UNIQUE INDEX IF NOT EXISTS calibrations_one_active_mode ON calibrations (account_id, model, fingerprint, mode)
  WHERE active;
-- The cron sweep deletes inactive calibrations 30 days after their deactivation.
CREATE INDEX IF NOT EXISTS calibrations_deactivated ON calibrations (deactivated_at) WHERE NOT active;

-- Fits kept for reuse (issue 50): a preview then a create, or a create again (a promotion), of the same
-- evaluation and question reads the labels and fits once. A done evaluation's items never change, so the
-- evaluation id, question id and the fitter's version name the result; `outcome` is the fitted calibration's
-- fields, or the 422 it answered, as JSON text. Deleted with the evaluation (by the sweep).
CREATE TABLE IF NOT EXISTS calibration_fits (
  evaluation_id  text NOT NULL,
  question_id    text NOT NULL,
  fitter         text NOT NULL,
  account_id     text NOT NULL,
  outcome        text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (evaluation_id, question_id, fitter)
);
