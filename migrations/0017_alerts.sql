-- Operator alerts (issue 43): incidents, the signal counters they read, the canary's recorded answers.

-- One row per incident of an alert instance (`key`, e.g. `redis_unreachable`, `canary:<worker url>`): pending
-- while its condition has not yet held for the alert's duration, open from `opened_at`, closed at
-- `resolved_at`. The webhook is sent once when it opens and once when it resolves (`*_sent_at`, retried on the
-- next tick until sent). At most one unresolved row per key.
CREATE TABLE IF NOT EXISTS alert_incidents (
  id BIGSERIAL PRIMARY KEY,
  key TEXT NOT NULL,
  alert TEXT NOT NULL,
  summary TEXT NOT NULL,
  detail TEXT NOT NULL DEFAULT '',
  pending_since TIMESTAMPTZ NOT NULL DEFAULT now(),
  opened_at TIMESTAMPTZ,
  last_seen_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  resolved_at TIMESTAMPTZ,
  open_sent_at TIMESTAMPTZ,
  resolve_sent_at TIMESTAMPTZ
);
CREATE UNIQUE INDEX IF NOT EXISTS alert_incidents_unresolved ON alert_incidents (key) WHERE resolved_at IS NULL;
CREATE INDEX IF NOT EXISTS alert_incidents_opened ON alert_incidents (opened_at);

-- Failures counted where they happen (Stripe webhook signatures, ledger Durable Object calls), one row per
-- signal and minute, so a flood of them is one upsert a minute per signal, never a row each.
CREATE TABLE IF NOT EXISTS ops_signal_counts (
  signal TEXT NOT NULL,
  minute TIMESTAMPTZ NOT NULL,
  n BIGINT NOT NULL DEFAULT 0,
  PRIMARY KEY (signal, minute)
);

-- The canary's answer bytes per exact version and numerics class: recorded at first sight, compared after.
CREATE TABLE IF NOT EXISTS canary_baselines (
  model TEXT NOT NULL,
  numerics_class TEXT NOT NULL,
  answers TEXT NOT NULL,
  recorded_from TEXT NOT NULL,
  recorded_at TIMESTAMPTZ NOT NULL DEFAULT now(),
  PRIMARY KEY (model, numerics_class)
);

-- The 5xx-rate alert reads the last 5 minutes of usage events every minute; without this index that is a
-- scan of every retained event (the daily pruning by created_at uses it too).
CREATE INDEX IF NOT EXISTS usage_events_created ON usage_events (created_at);
