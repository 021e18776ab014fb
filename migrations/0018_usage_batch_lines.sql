-- Batch lines in the usage roll-ups (issue 42): how many of a bucket's calls were batch lines, so the console's
-- usage page can tell them apart at no extra read cost (docs/decisions.md, "Batch lines on the usage page").
-- A batch line's usage event is a decide's with `client_name = '(batch)'` (workers/batches/runner.ts,
-- BATCH_CLIENT_NAME). The columns are sums like the others (0004); the totals still include batch lines.

ALTER TABLE usage_hourly
  ADD COLUMN batch_requests BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_input_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_charge_micro_cents BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_error_requests BIGINT NOT NULL DEFAULT 0;

ALTER TABLE usage_daily
  ADD COLUMN batch_requests BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_input_tokens BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_charge_micro_cents BIGINT NOT NULL DEFAULT 0,
  ADD COLUMN batch_error_requests BIGINT NOT NULL DEFAULT 0;

-- The one definition of what an event adds (0004), now with the batch-line columns (in table order).
CREATE OR REPLACE FUNCTION usage_rollup_of(e usage_events) RETURNS usage_hourly
LANGUAGE sql STABLE AS $$
  SELECT
    e.account_id,
    date_trunc('hour', e.created_at, 'UTC'),
    e.key_id,
    COALESCE(e.model, 'none'),
    CASE WHEN e.status = 200 THEN COALESCE(e.served_by, 'none') ELSE 'none' END,
    (e.status = 200 AND NOT e.replayed)::int,
    CASE WHEN e.status = 200 AND NOT e.replayed THEN e.input_tokens ELSE 0 END,
    CASE WHEN e.status = 200 AND NOT e.replayed THEN e.charge_micro_cents ELSE 0 END,
    (e.status = 200 AND NOT e.replayed AND e.served_by = 'gpu')::int,
    (e.status = 200 AND NOT e.replayed AND e.served_by = 'fallback')::int,
    (e.status <> 200)::int,
    (e.status = 200 AND e.replayed)::int,
    (e.status = 200 AND NOT e.replayed AND e.client_name IS NOT DISTINCT FROM '(batch)')::int,
    CASE WHEN e.status = 200 AND NOT e.replayed AND e.client_name IS NOT DISTINCT FROM '(batch)'
         THEN e.input_tokens ELSE 0 END,
    CASE WHEN e.status = 200 AND NOT e.replayed AND e.client_name IS NOT DISTINCT FROM '(batch)'
         THEN e.charge_micro_cents ELSE 0 END,
    (e.status <> 200 AND e.client_name IS NOT DISTINCT FROM '(batch)')::int
$$;

-- Batch lines recorded before this migration (raw events are kept 90 days; batches are newer than that).
UPDATE usage_hourly h
   SET batch_requests = s.batch_requests, batch_input_tokens = s.batch_input_tokens,
       batch_charge_micro_cents = s.batch_charge_micro_cents, batch_error_requests = s.batch_error_requests
  FROM (SELECT r.account_id, r.hour, r.key_id, r.model, r.served_by, sum(r.batch_requests) AS batch_requests,
               sum(r.batch_input_tokens) AS batch_input_tokens,
               sum(r.batch_charge_micro_cents) AS batch_charge_micro_cents,
               sum(r.batch_error_requests) AS batch_error_requests
          FROM usage_events e, LATERAL usage_rollup_of(e) r
         WHERE e.client_name = '(batch)'
         GROUP BY 1, 2, 3, 4, 5) s
 WHERE (h.account_id, h.hour, h.key_id, h.model, h.served_by) = (s.account_id, s.hour, s.key_id, s.model, s.served_by);

UPDATE usage_daily d
   SET batch_requests = s.batch_requests, batch_input_tokens = s.batch_input_tokens,
       batch_charge_micro_cents = s.batch_charge_micro_cents, batch_error_requests = s.batch_error_requests
  FROM (SELECT account_id, date_trunc('day', hour, 'UTC') AS day, key_id, model, served_by,
               sum(batch_requests) AS batch_requests, sum(batch_input_tokens) AS batch_input_tokens,
               sum(batch_charge_micro_cents) AS batch_charge_micro_cents,
               sum(batch_error_requests) AS batch_error_requests
          FROM usage_hourly
         WHERE batch_requests > 0 OR batch_error_requests > 0
         GROUP BY 1, 2, 3, 4, 5) s
 WHERE (d.account_id, d.day, d.key_id, d.model, d.served_by) = (s.account_id, s.day, s.key_id, s.model, s.served_by);
