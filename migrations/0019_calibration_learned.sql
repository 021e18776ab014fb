-- State-reading calibrations (issue 49): a calibration may answer with a linear model over the state's words
-- stacked with the version's answer (method `state_words`, schema/learned/). `learned` is that model's JSON text
-- (at most 256 KiB, read by id and kept per isolate); `features` what it read, as the API shows it. Both null for
-- a map. Rows stay immutable: a replay applies the model that answered, whatever the calibration's state now.
ALTER TABLE calibrations DROP CONSTRAINT IF EXISTS calibrations_method_check;
ALTER TABLE calibrations ADD CONSTRAINT calibrations_method_check
  CHECK (method IN ('temperature', 'temperature_bias', 'state_words'));
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS features text;
ALTER TABLE calibrations ADD COLUMN IF NOT EXISTS learned text;
ALTER TABLE calibrations ADD CONSTRAINT calibrations_learned_cap
  CHECK (learned IS NULL OR (method = 'state_words' AND octet_length(learned) <= 262144));
