import { type DbEnv, getSql } from "./db";
import { addCounts, conflictKey, DAILY, dayOf, HOURLY, ROLLUP_COUNTS } from "./usage-rollup-sql";

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

// The insert returns the row only when the request id is new; the roll-ups add exactly what it returned, so
// a repeated or concurrent write of the same event adds nothing (migrations/0004: usage_rollup_of).
const INSERT_AND_ROLL_UP = `
  WITH ins AS (
    INSERT INTO usage_events (request_id, account_id, key_id, mode, model, served_by, input_tokens, state_tokens,
      question_tokens, charge_micro_cents, unit_price_micro_cents, tier, status, error_code, replayed, created_at)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
    ON CONFLICT (request_id) DO NOTHING
    RETURNING *
  ), r AS (
    SELECT r.* FROM ins, LATERAL usage_rollup_of(ROW(ins.*)::usage_events) r
  ), up AS (
    INSERT INTO usage_hourly SELECT * FROM r
    ON CONFLICT ${conflictKey(HOURLY)} DO UPDATE SET ${addCounts(HOURLY)}
    RETURNING 1
  ), up_day AS (
    INSERT INTO usage_daily
    SELECT r.account_id, ${dayOf("r.hour")}, r.key_id, r.model, r.served_by, ${ROLLUP_COUNTS.map((c) => `r.${c}`).join(", ")}
      FROM r
    ON CONFLICT ${conflictKey(DAILY)} DO UPDATE SET ${addCounts(DAILY)}
  )
  SELECT count(*)::int AS added FROM up`;

/**
 * Inserts the event once and adds it to its hourly and daily roll-ups in the same statement; true when the event was
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

/** Where usage events go; a no-op where no database is configured. */
export interface UsageLog {
  record(e: UsageEvent): Promise<void>;
}

/** The usage log of an env. */
export function usageLog(env: DbEnv): UsageLog {
  if (!env.DATABASE_URL) return { record: async () => {} };
  return {
    record: async (e) => {
      await recordUsageEvent(env, e);
    },
  };
}
