import { type DbEnv, getSql, withTransaction } from "./db";

/** How long raw usage events are kept (the hourly roll-ups are kept for the account's life). */
export const USAGE_EVENT_RETENTION_DAYS = 90;

/** Hours the scheduled repair recomputes (the current one and the two before it). */
export const REPAIR_RECENT_HOURS = 3;

/** What a repair found and rewrote. */
export interface RepairResult {
  /** Roll-up rows that were missing or differed from the raw events, now rewritten. */
  rewritten: number;
  /** Roll-up rows with no raw event behind them, now deleted. */
  deleted: number;
}

// Recomputes every roll-up row from `hour` on (optionally one account) from the raw events and overwrites
// the ones that differ; rows no event backs are deleted. The two CTEs touch disjoint rows.
const REPAIR = `
  WITH fresh AS (
    SELECT r.account_id, r.hour, r.key_id, r.model, r.served_by, sum(r.requests) AS requests,
           sum(r.input_tokens) AS input_tokens, sum(r.charge_micro_cents) AS charge_micro_cents,
           sum(r.gpu_requests) AS gpu_requests, sum(r.fallback_requests) AS fallback_requests,
           sum(r.error_requests) AS error_requests, sum(r.replays) AS replays
      FROM usage_events e, LATERAL usage_rollup_of(e) r
     WHERE e.created_at >= $1 AND ($2::text IS NULL OR e.account_id = $2)
     GROUP BY 1, 2, 3, 4, 5
  ), del AS (
    DELETE FROM usage_hourly h
     WHERE h.hour >= $1 AND ($2::text IS NULL OR h.account_id = $2)
       AND NOT EXISTS (SELECT 1 FROM fresh f WHERE (f.account_id, f.hour, f.key_id, f.model, f.served_by)
                                                 = (h.account_id, h.hour, h.key_id, h.model, h.served_by))
    RETURNING 1
  ), up AS (
    INSERT INTO usage_hourly SELECT * FROM fresh
    ON CONFLICT (account_id, hour, key_id, model, served_by) DO UPDATE SET
      requests = EXCLUDED.requests, input_tokens = EXCLUDED.input_tokens,
      charge_micro_cents = EXCLUDED.charge_micro_cents, gpu_requests = EXCLUDED.gpu_requests,
      fallback_requests = EXCLUDED.fallback_requests, error_requests = EXCLUDED.error_requests,
      replays = EXCLUDED.replays
    WHERE (usage_hourly.requests, usage_hourly.input_tokens, usage_hourly.charge_micro_cents,
           usage_hourly.gpu_requests, usage_hourly.fallback_requests, usage_hourly.error_requests,
           usage_hourly.replays)
          IS DISTINCT FROM (EXCLUDED.requests, EXCLUDED.input_tokens, EXCLUDED.charge_micro_cents,
           EXCLUDED.gpu_requests, EXCLUDED.fallback_requests, EXCLUDED.error_requests, EXCLUDED.replays)
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM up)::int AS rewritten, (SELECT count(*) FROM del)::int AS deleted`;

/** Raw events before this instant are past their retention (pruned or about to be). */
export function retentionCutoff(nowMs: number): number {
  return nowMs - USAGE_EVENT_RETENTION_DAYS * 86_400_000;
}

/** Start of the UTC hour containing `ms`. */
export function hourStart(ms: number): number {
  return ms - (((ms % 3_600_000) + 3_600_000) % 3_600_000);
}

/**
 * Recomputes the roll-ups of every hour from the one containing `sinceMs` on (all accounts, or one) from
 * the raw events, overwriting what differs. Event writes wait while it runs: it locks `usage_hourly`
 * against writers first, so no event lands between the recount and the overwrite. Hours whose raw events
 * may already be pruned are never recomputed: `sinceMs` is clamped to the first hour wholly kept.
 */
export async function repairUsageRollups(
  env: DbEnv,
  sinceMs: number,
  accountId: string | null = null,
  nowMs = Date.now(),
): Promise<RepairResult> {
  const since = Math.max(hourStart(sinceMs), hourStart(retentionCutoff(nowMs)) + 3_600_000);
  return withTransaction(env, async (client) => {
    await client.query("LOCK TABLE usage_hourly IN SHARE ROW EXCLUSIVE MODE");
    const { rows } = await client.query(REPAIR, [new Date(since).toISOString(), accountId]);
    const row = rows[0] as { rewritten: number; deleted: number };
    return { rewritten: row.rewritten, deleted: row.deleted };
  });
}

/** The scheduled repair: the last `REPAIR_RECENT_HOURS` hours of every account. */
export function repairRecentUsageRollups(env: DbEnv, nowMs = Date.now()): Promise<RepairResult> {
  return repairUsageRollups(env, nowMs - (REPAIR_RECENT_HOURS - 1) * 3_600_000, null, nowMs);
}

/**
 * Deletes up to `batch` raw events older than the retention (the roll-ups stay); returns how many went.
 * Call until it answers less than `batch`.
 */
export async function pruneUsageEvents(env: DbEnv, nowMs = Date.now(), batch = 10_000): Promise<number> {
  const before = new Date(retentionCutoff(nowMs)).toISOString();
  const rows = (await getSql(env).query(
    `WITH old AS (SELECT ctid FROM usage_events WHERE created_at < $1 LIMIT $2),
          gone AS (DELETE FROM usage_events WHERE ctid IN (SELECT ctid FROM old) RETURNING 1)
     SELECT count(*)::int AS n FROM gone`,
    [before, batch],
  )) as Array<{ n: number }>;
  return rows[0]?.n ?? 0;
}
