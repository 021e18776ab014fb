import type { Granularity, UsageGroupBy } from "../../schema/usage";
import { type DbEnv, getSql } from "./db";
import { DAILY, HOURLY, ROLLUP_COUNTS } from "./usage-rollup-sql";

/** One report question: an account's roll-ups in [startMs, endMs), bucketed and grouped. */
export interface UsageQuery {
  accountId: string;
  /** Inclusive, at a bucket boundary (epoch ms). */
  startMs: number;
  /** Exclusive, at a bucket boundary (epoch ms). */
  endMs: number;
  granularity: Granularity;
  groupBy: UsageGroupBy;
  /** Only this key's usage (null: every key). */
  keyId?: string | null;
}

/** The counts a bucket carries (spec: Usage series points). */
export interface UsageCounts {
  requests: number;
  input_tokens: number;
  charge_micro_cents: number;
  gpu_requests: number;
  fallback_requests: number;
  error_requests: number;
  /** Of the counts above, the batch lines' (migrations/0017). */
  batch_requests: number;
  batch_input_tokens: number;
  batch_charge_micro_cents: number;
  batch_error_requests: number;
}

/** One non-empty bucket of one group, as summed from the roll-ups. */
export interface UsageBucketRow extends UsageCounts {
  /** Bucket start, epoch ms (UTC). */
  bucketMs: number;
  /** Key id, model or served_by value; null when grouped by `none`. */
  group: string | null;
}

const GROUP_COLUMN: Record<UsageGroupBy, string> = {
  none: "NULL::text",
  key: "key_id",
  model: "model",
  served_by: "served_by",
};

const COUNTS = ROLLUP_COUNTS.filter((c): c is keyof UsageCounts => c !== "replays");

/** A bucket with nothing in it. */
export const ZERO_COUNTS: Readonly<UsageCounts> = Object.freeze(
  Object.fromEntries(COUNTS.map((c) => [c, 0])) as unknown as UsageCounts,
);

function toSafeInt(v: unknown, name: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n)) throw new RangeError(`${name} ${String(v)} is not a safe integer`);
  return n;
}

/**
 * Sums the daily or hourly roll-ups of the query's account and range into UTC buckets per group. Only buckets with a
 * roll-up row come back (ordered by group, then bucket); filling the empty ones is the shaper's job.
 */
export async function sumUsage(env: DbEnv, q: UsageQuery): Promise<UsageBucketRow[]> {
  const t = q.granularity === "day" ? DAILY : HOURLY;
  const group = GROUP_COLUMN[q.groupBy];
  const sums = COUNTS.map((c) => `sum(${c})::text AS ${c}`).join(", ");
  const rows = (await getSql(env).query(
    `SELECT ${t.bucket} AS bucket, ${group} AS grp, ${sums}
       FROM ${t.name}
      WHERE account_id = $1 AND ${t.bucket} >= $2 AND ${t.bucket} < $3 AND ($4::text IS NULL OR key_id = $4)
      GROUP BY 1, 2
      ORDER BY 2, 1`,
    [q.accountId, new Date(q.startMs).toISOString(), new Date(q.endMs).toISOString(), q.keyId ?? null],
  )) as Array<Record<string, unknown>>;
  return rows.map((r) => {
    const out: UsageBucketRow = {
      bucketMs: new Date(r.bucket as string | Date).getTime(),
      group: r.grp === null || r.grp === undefined ? null : String(r.grp),
      ...ZERO_COUNTS,
    };
    for (const c of COUNTS) out[c] = toSafeInt(r[c], c);
    return out;
  });
}

/** Whether the account owns a key with this id (any state: revoked and expired keys keep their usage). */
export async function accountHasKey(env: DbEnv, accountId: string, keyId: string): Promise<boolean> {
  const rows = (await getSql(env).query("SELECT 1 FROM api_keys WHERE id = $1 AND account_id = $2", [
    keyId,
    accountId,
  ])) as unknown[];
  return rows.length > 0;
}
