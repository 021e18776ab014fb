import { type DbEnv, getSql, withTransaction } from "./db";
import {
  conflictKey,
  DAILY,
  dayOf,
  HOURLY,
  overwriteDiffering,
  ROLLUP_COUNTS,
  type RollupTable,
  sumCounts,
} from "./usage-rollup-sql";

/** How long raw usage events are kept (the roll-ups are kept for the account's life). */
export const USAGE_EVENT_RETENTION_DAYS = 90;

/** Hours the scheduled repair recomputes (the current one and the two before it). */
export const REPAIR_RECENT_HOURS = 3;

/** What a repair found and rewrote. */
export interface RepairResult {
  /** Roll-up rows (hourly and daily) that were missing or differed from the raw events, now rewritten. */
  rewritten: number;
  /** Roll-up rows (hourly and daily) with no raw event behind them, now deleted. */
  deleted: number;
}

// Recomputes every row of `t` from bucket $1 on (optionally one account, $2) from `source`, which yields
// rows aliased `r` with the bucket as `b`, and overwrites the ones that differ; rows nothing backs are
// deleted. The two modifying CTEs touch disjoint rows.
const repairSql = (t: RollupTable, source: string, since: string) => `
  WITH fresh AS (
    SELECT r.account_id, r.b AS ${t.bucket}, r.key_id, r.model, r.served_by, ${sumCounts}
      FROM ${source}
     WHERE ${since} >= $1 AND ($2::text IS NULL OR r.account_id = $2)
     GROUP BY 1, 2, 3, 4, 5
  ), del AS (
    DELETE FROM ${t.name} h
     WHERE h.${t.bucket} >= $1 AND ($2::text IS NULL OR h.account_id = $2)
       AND NOT EXISTS (SELECT 1 FROM fresh f WHERE (f.account_id, f.${t.bucket}, f.key_id, f.model, f.served_by)
                                             = (h.account_id, h.${t.bucket}, h.key_id, h.model, h.served_by))
    RETURNING 1
  ), up AS (
    INSERT INTO ${t.name} SELECT * FROM fresh
    ON CONFLICT ${conflictKey(t)} DO UPDATE SET ${overwriteDiffering(t)}
    RETURNING 1
  )
  SELECT (SELECT count(*) FROM up)::int AS rewritten, (SELECT count(*) FROM del)::int AS deleted`;

// Hours from the raw events; days from the (just repaired) hours.
const REPAIR_HOURS = repairSql(
  HOURLY,
  `(SELECT e.account_id, e.created_at, r.hour AS b, r.key_id, r.model, r.served_by,
           ${ROLLUP_COUNTS.map((c) => `r.${c}`).join(", ")}
      FROM usage_events e, LATERAL usage_rollup_of(e) r) r`,
  "r.created_at",
);
const REPAIR_DAYS = repairSql(DAILY, `(SELECT h.*, ${dayOf("h.hour")} AS b FROM usage_hourly h) r`, "r.hour");

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
  const day = since - (since % 86_400_000);
  return withTransaction(env, async (client) => {
    await client.query("LOCK TABLE usage_hourly, usage_daily IN SHARE ROW EXCLUSIVE MODE");
    const hours = await client.query(REPAIR_HOURS, [new Date(since).toISOString(), accountId]);
    const days = await client.query(REPAIR_DAYS, [new Date(day).toISOString(), accountId]);
    const [h, d] = [hours.rows[0], days.rows[0]] as Array<{ rewritten: number; deleted: number }>;
    return { rewritten: h!.rewritten + d!.rewritten, deleted: h!.deleted + d!.deleted };
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
