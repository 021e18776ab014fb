-- Request metadata the spec keeps with a call (Common headers): the caller's `x-client-request-id` and the
-- client name and version from `user-agent`. Never content. NULL when not sent.
ALTER TABLE usage_events ADD COLUMN IF NOT EXISTS client_request_id text;
ALTER TABLE usage_events ADD COLUMN IF NOT EXISTS client_name text;
ALTER TABLE usage_events ADD COLUMN IF NOT EXISTS client_version text;
