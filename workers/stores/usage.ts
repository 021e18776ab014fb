import type { Env } from "../env";
import { getSql } from "./db";

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

/** Inserts the event once (a retried write of the same request id is a no-op). */
export async function recordUsageEvent(env: Env, e: UsageEvent): Promise<void> {
  await getSql(env).query(
    `INSERT INTO usage_events (request_id, account_id, key_id, mode, model, served_by, input_tokens, state_tokens,
       question_tokens, charge_micro_cents, unit_price_micro_cents, tier, status, error_code, replayed, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
     ON CONFLICT (request_id) DO NOTHING`,
    [
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
    ],
  );
}

/** Where usage events go; a no-op where no database is configured. */
export interface UsageLog {
  record(e: UsageEvent): Promise<void>;
}

/** The usage log of an env. */
export function usageLog(env: Env): UsageLog {
  if (!env.DATABASE_URL) return { record: async () => {} };
  return { record: (e) => recordUsageEvent(env, e) };
}
