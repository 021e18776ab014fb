import { type DbEnv, getSql } from "./db";

/** One decide call as reported by the usage routes (errors included; never content). */
export interface UsageEvent {
  request_id: string;
  account_id: string;
  key_id: string;
  mode: "live" | "test";
  model: string | null;
  served_by: "gpu" | "fallback" | null;
  input_tokens: number;
  state_tokens: number;
  question_tokens: number;
  charge_micro_cents: number;
  unit_price_micro_cents: number;
  tier: string | null;
  status: number;
  error_code: string | null;
  replayed: boolean;
  /** ms since epoch */
  at: number;
}

// The insert returns the row only when the request id is new; the roll-up adds exactly what it returned, so
// a repeated or concurrent write of the same event adds nothing (migrations/0004: usage_rollup_of).
const INSERT_AND_ROLL_UP = `
  WITH ins AS (
    INSERT INTO usage_events (request_id, account_id, key_id, mode, model, served_by, input_tokens, state_tokens,
      question_tokens, charge_micro_cents, unit_price_micro_cents, tier, status, error_code, replayed, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
    ON CONFLICT (request_id) DO NOTHING
    RETURNING *
  ), up AS (
    INSERT INTO usage_hourly
    SELECT r.* FROM ins, LATERAL usage_rollup_of(ROW(ins.*)::usage_events) r
    ON CONFLICT (account_id, hour, key_id, model, served_by) DO UPDATE SET
      requests = usage_hourly.requests + EXCLUDED.requests,
      input_tokens = usage_hourly.input_tokens + EXCLUDED.input_tokens,
      charge_micro_cents = usage_hourly.charge_micro_cents + EXCLUDED.charge_micro_cents,
      gpu_requests = usage_hourly.gpu_requests + EXCLUDED.gpu_requests,
      fallback_requests = usage_hourly.fallback_requests + EXCLUDED.fallback_requests,
      error_requests = usage_hourly.error_requests + EXCLUDED.error_requests,
      replays = usage_hourly.replays + EXCLUDED.replays
    RETURNING 1
  )
  SELECT count(*)::int AS added FROM up`;

/**
 * Inserts the event once and adds it to its hourly roll-up in the same statement; true when the event was
 * new (a retried or concurrent write of the same request id is a no-op and answers false).
 */
export async function recordUsageEvent(env: DbEnv, e: UsageEvent): Promise<boolean> {
  const rows = (await getSql(env).query(INSERT_AND_ROLL_UP, [
    e.request_id,
    e.account_id,
    e.key_id,
    e.mode,
    e.model,
    e.served_by,
    e.input_tokens,
    e.state_tokens,
    e.question_tokens,
    e.charge_micro_cents,
    e.unit_price_micro_cents,
    e.tier,
    e.status,
    e.error_code,
    e.replayed,
    new Date(e.at).toISOString(),
  ])) as Array<{ added: number }>;
  return rows[0]?.added === 1;
}
