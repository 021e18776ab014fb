-- Issue 50 item 7, "left-over batch objects": an upload writes its row before it streams a single byte to R2, as
-- `uploading`, under the account's lock and within its caps (three batches queued, running, paused or uploading;
-- 1 GiB kept), so parallel uploads can no longer all pass the count before the lock, and every object in R2 has a
-- row the caps count and the cron sweep sees. An `uploading` row is touched at each chunk it writes; one left
-- untouched (its upload was killed mid-stream) is deleted by the sweep with its objects. The API never shows it.
ALTER TABLE batches DROP CONSTRAINT IF EXISTS batches_status_check;
ALTER TABLE batches ADD CONSTRAINT batches_status_check
  CHECK (status IN ('uploading', 'queued', 'running', 'paused', 'completed', 'cancelled', 'expired', 'failed'));
CREATE INDEX IF NOT EXISTS batches_uploading ON batches (updated_at) WHERE status = 'uploading';
