-- Usage roll-ups (issue 14): hourly and daily sums per (account, hour or day, key, model, served_by), kept
-- exactly once.
-- usage_events (0002) stays the raw table, keyed by request id. workers/stores/usage.ts inserts an event
-- and adds it to its hour and day in ONE statement (the addition reads only the rows the insert returned, so a
-- repeated or concurrent write of the same request id adds nothing); workers/stores/usage-rollups.ts
-- recomputes recent hours from the raw events (repair) and prunes raw events past their retention.

CREATE TABLE usage_hourly (
  account_id TEXT NOT NULL,
  -- start of the UTC hour of the event's created_at (a late event lands in its own hour)
  hour TIMESTAMPTZ NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  served_by TEXT NOT NULL CHECK (served_by IN ('gpu', 'fallback', 'none')),
  requests BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  charge_micro_cents BIGINT NOT NULL DEFAULT 0,
  gpu_requests BIGINT NOT NULL DEFAULT 0,
  fallback_requests BIGINT NOT NULL DEFAULT 0,
  error_requests BIGINT NOT NULL DEFAULT 0,
  replays BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, hour, key_id, model, served_by)
);

-- The same sums per UTC day, kept by the same statement (by-day reports read ~24× fewer rows).
CREATE TABLE usage_daily (
  account_id TEXT NOT NULL,
  day TIMESTAMPTZ NOT NULL,
  key_id TEXT NOT NULL,
  model TEXT NOT NULL,
  served_by TEXT NOT NULL CHECK (served_by IN ('gpu', 'fallback', 'none')),
  requests BIGINT NOT NULL DEFAULT 0,
  input_tokens BIGINT NOT NULL DEFAULT 0,
  charge_micro_cents BIGINT NOT NULL DEFAULT 0,
  gpu_requests BIGINT NOT NULL DEFAULT 0,
  fallback_requests BIGINT NOT NULL DEFAULT 0,
  error_requests BIGINT NOT NULL DEFAULT 0,
  replays BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (account_id, day, key_id, model, served_by)
);

-- What one event adds to its hour: the single definition used by the writer, the repair and the backfill
-- below (rules in docs/decisions.md, "Usage reports"). An error that never reached a model or a serving
-- path counts in the group `none` (model `none`, served_by `none`).
CREATE FUNCTION usage_rollup_of(e usage_events) RETURNS usage_hourly
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
    (e.status = 200 AND e.replayed)::int
$$;

-- Raw events are append-only and arrive in time order (a late one is seconds or minutes old), so a BRIN
-- index on the time column stays tiny and serves the repair's and the retention's time-range scans.
CREATE INDEX usage_events_created_brin ON usage_events USING brin (created_at);

-- Roll-ups of events written before this migration.
INSERT INTO usage_hourly
SELECT r.account_id, r.hour, r.key_id, r.model, r.served_by, sum(r.requests), sum(r.input_tokens),
       sum(r.charge_micro_cents), sum(r.gpu_requests), sum(r.fallback_requests), sum(r.error_requests),
       sum(r.replays)
  FROM usage_events e, LATERAL usage_rollup_of(e) r
 GROUP BY 1, 2, 3, 4, 5;

INSERT INTO usage_daily
SELECT account_id, date_trunc('day', hour, 'UTC'), key_id, model, served_by, sum(requests), sum(input_tokens),
       sum(charge_micro_cents), sum(gpu_requests), sum(fallback_requests), sum(error_requests), sum(replays)
  FROM usage_hourly
 GROUP BY 1, 2, 3, 4, 5;
