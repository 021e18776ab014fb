// SQL text shared by the roll-up writer (usage.ts) and the repair (usage-rollups.ts): the counted columns
// and the clauses built from them, so the two tables and the two paths cannot drift apart.

/** The counts a roll-up row (hourly or daily) carries, in table order. */
export const ROLLUP_COUNTS = [
  "requests",
  "input_tokens",
  "charge_micro_cents",
  "gpu_requests",
  "fallback_requests",
  "error_requests",
  "replays",
  // Of those, the batch lines' (migrations/0017: events with client_name `svc-batches`).
  "batch_requests",
  "batch_input_tokens",
  "batch_charge_micro_cents",
  "batch_error_requests",
] as const;

/** A roll-up table and the name of its bucket column. */
export type RollupTable = { name: "usage_hourly"; bucket: "hour" } | { name: "usage_daily"; bucket: "day" };

/** The hourly roll-up (migrations/0004). */
export const HOURLY: RollupTable = { name: "usage_hourly", bucket: "hour" };
/** The daily roll-up (migrations/0004). */
export const DAILY: RollupTable = { name: "usage_daily", bucket: "day" };

/** `ON CONFLICT` target of a roll-up table. */
export const conflictKey = (t: RollupTable) => `(account_id, ${t.bucket}, key_id, model, served_by)`;

/** `sum(r.requests) AS requests, …` over rows aliased `r`. */
export const sumCounts = ROLLUP_COUNTS.map((c) => `sum(r.${c}) AS ${c}`).join(", ");

/** `requests = usage_hourly.requests + EXCLUDED.requests, …`: the writer's addition. */
export const addCounts = (t: RollupTable) =>
  ROLLUP_COUNTS.map((c) => `${c} = ${t.name}.${c} + EXCLUDED.${c}`).join(", ");

/** `requests = EXCLUDED.requests, … WHERE (…) IS DISTINCT FROM (…)`: the repair's overwrite of what differs. */
export const overwriteDiffering = (t: RollupTable) =>
  `${ROLLUP_COUNTS.map((c) => `${c} = EXCLUDED.${c}`).join(", ")}
   WHERE (${ROLLUP_COUNTS.map((c) => `${t.name}.${c}`).join(", ")})
         IS DISTINCT FROM (${ROLLUP_COUNTS.map((c) => `EXCLUDED.${c}`).join(", ")})`;

/** The UTC day of an `hour` column expression. */
export const dayOf = (hour: string) => `date_trunc('day', ${hour}, 'UTC')`;
