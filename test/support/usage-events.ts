// Usage events for the reports tests: a generator, an independent roll-up oracle (plain JS, not the SQL
// function under test), and the Postgres targets the roll-up tests run against.

export { usageEvent } from "./usage-event";

import { applyMigrations } from "../../scripts/migrations";
import { withNodeClient } from "../../scripts/stack/neon-node";
import type { DbEnv } from "../../workers/stores/db";
import type { UsageEvent } from "../../workers/stores/usage";
import { type UsageCounts, ZERO_COUNTS } from "../../workers/stores/usage-reports";
import { stack, useStackNeon } from "./stack-db";
import { usageEvent } from "./usage-event";

/** PGlite always; the machine's PostgreSQL too when REAL_DATABASE_URL names it (races need a real server). */
export function usageTargets(): Array<{ name: string; env: () => Promise<DbEnv> }> {
  const at = (url?: string) => async (): Promise<DbEnv> => {
    const s = stack();
    const stackUrl = useStackNeon(); // configures the process-wide Neon driver for the stack's bridge
    const DATABASE_URL = url ?? stackUrl;
    await withNodeClient(DATABASE_URL, { wsProxy: s.NEON_WS_PROXY }, (q) => applyMigrations(q));
    return { DATABASE_URL, NEON_WS_PROXY: s.NEON_WS_PROXY, NEON_HTTP_ENDPOINT: s.NEON_HTTP_ENDPOINT };
  };
  const real = process.env.REAL_DATABASE_URL;
  return [{ name: "PGlite", env: at() }, ...(real ? [{ name: "PostgreSQL server", env: at(real) }] : [])];
}

/** A varied, deterministic mix for one account over `hours` hours ending before `endMs`. */
export function mixedEvents(accountId: string, count: number, endMs: number, hours = 6): UsageEvent[] {
  const out: UsageEvent[] = [];
  for (let i = 0; i < count; i++) {
    const at = endMs - 1 - ((i * 7_919_000) % (hours * 3_600_000));
    const kind = i % 7;
    const key_id = i % 3 === 0 ? "key_B" : "key_A";
    const input_tokens = 10 + ((i * 37) % 500);
    if (kind === 0)
      out.push(
        usageEvent(accountId, at, {
          key_id,
          input_tokens,
          served_by: "fallback",
          model: "svc-fallback-1.0.0",
        }),
      );
    else if (kind === 1)
      out.push(
        usageEvent(accountId, at, {
          key_id,
          input_tokens,
          status: 422,
          error_code: "invalid_value",
          model: null,
          served_by: null,
          charge_micro_cents: 0,
        }),
      );
    else if (kind === 2)
      out.push(
        usageEvent(accountId, at, {
          key_id,
          input_tokens,
          status: 429,
          error_code: "requests_per_minute",
          served_by: null,
          charge_micro_cents: 0,
        }),
      );
    else if (kind === 3)
      out.push(usageEvent(accountId, at, { key_id, input_tokens, replayed: true, charge_micro_cents: 0 }));
    else if (kind === 4)
      out.push(
        usageEvent(accountId, at, {
          key_id,
          input_tokens,
          mode: "test",
          charge_micro_cents: 0,
          unit_price_micro_cents: 0,
          tier: "test",
        }),
      );
    else out.push(usageEvent(accountId, at, { key_id, input_tokens }));
  }
  // Every fifth event a batch line's (its usage event names the client `(batch)`), errors and replays too.
  return out.map((e, i) => (i % 5 === 0 ? { ...e, client_name: "(batch)" } : e));
}

/** Roll-up rows as the tests compare them (strings for bigint columns avoided: plain numbers). */
export interface RollupRow extends UsageCounts {
  hour: string;
  key_id: string;
  model: string;
  served_by: string;
  replays: number;
}

/** The roll-ups the events should produce, by the documented rules, sorted like `readRollups`. */
export function expectedRollups(events: readonly UsageEvent[]): RollupRow[] {
  const rows = new Map<string, RollupRow>();
  for (const e of events) {
    const ok = e.status === 200;
    const counted = ok && !e.replayed;
    const row: RollupRow = {
      hour: new Date(Math.floor(e.at / 3_600_000) * 3_600_000).toISOString(),
      key_id: e.key_id,
      model: e.model ?? "none",
      served_by: ok ? (e.served_by ?? "none") : "none",
      ...ZERO_COUNTS,
      replays: 0,
    };
    const id = `${row.hour}|${row.key_id}|${row.model}|${row.served_by}`;
    const r = rows.get(id) ?? row;
    rows.set(id, r);
    if (counted) {
      r.requests += 1;
      r.input_tokens += e.input_tokens;
      r.charge_micro_cents += e.charge_micro_cents;
      if (e.served_by === "gpu") r.gpu_requests += 1;
      if (e.served_by === "fallback") r.fallback_requests += 1;
    }
    if (!ok) r.error_requests += 1;
    if (ok && e.replayed) r.replays += 1;
    if (e.client_name === "(batch)") {
      if (counted) {
        r.batch_requests += 1;
        r.batch_input_tokens += e.input_tokens;
        r.batch_charge_micro_cents += e.charge_micro_cents;
      }
      if (!ok) r.batch_error_requests += 1;
    }
  }
  return [...rows.values()].sort(compareRollups);
}

function compareRollups(a: RollupRow, b: RollupRow): number {
  const ka = `${a.hour}|${a.key_id}|${a.model}|${a.served_by}`;
  const kb = `${b.hour}|${b.key_id}|${b.model}|${b.served_by}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The account's roll-up rows, numbers as numbers, in a stable order. */
export async function readRollups(env: DbEnv, accountId: string): Promise<RollupRow[]> {
  const s = stack();
  return withNodeClient(env.DATABASE_URL!, { wsProxy: s.NEON_WS_PROXY }, async (q) => {
    const { rows } = await q(
      `SELECT to_char(hour AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS hour, key_id, model, served_by,
              requests::int, input_tokens::int, charge_micro_cents::int, gpu_requests::int,
              fallback_requests::int, error_requests::int, replays::int, batch_requests::int,
              batch_input_tokens::int, batch_charge_micro_cents::int, batch_error_requests::int
         FROM usage_hourly WHERE account_id = $1`,
      [accountId],
    );
    return (rows as unknown as RollupRow[]).sort(compareRollups);
  });
}

/** Runs one statement on the target (corrupting roll-ups, counting rows). */
export async function runSql(
  env: DbEnv,
  sql: string,
  params: unknown[] = [],
): Promise<Array<Record<string, unknown>>> {
  const s = stack();
  return withNodeClient(
    env.DATABASE_URL!,
    { wsProxy: s.NEON_WS_PROXY },
    async (q) => (await q(sql, params)).rows,
  );
}

/** Daily roll-up rows of the account that differ from the sum of its hourly rows (0 when they agree). */
export async function dailyDrift(env: DbEnv, accountId: string): Promise<number> {
  const [row] = await runSql(
    env,
    `WITH h AS (SELECT date_trunc('day', hour, 'UTC') AS day, key_id, model, served_by, sum(requests) AS a,
                       sum(input_tokens) AS b, sum(charge_micro_cents) AS c, sum(gpu_requests) AS d,
                       sum(fallback_requests) AS e, sum(error_requests) AS f, sum(replays) AS g,
                       sum(batch_requests) AS h, sum(batch_input_tokens) AS i,
                       sum(batch_charge_micro_cents) AS j, sum(batch_error_requests) AS k
                  FROM usage_hourly WHERE account_id = $1 GROUP BY 1, 2, 3, 4),
          d AS (SELECT day, key_id, model, served_by, requests AS a, input_tokens AS b, charge_micro_cents AS c,
                       gpu_requests AS d, fallback_requests AS e, error_requests AS f, replays AS g,
                       batch_requests AS h, batch_input_tokens AS i, batch_charge_micro_cents AS j,
                       batch_error_requests AS k
                  FROM usage_daily WHERE account_id = $1)
     SELECT ((SELECT count(*) FROM (SELECT * FROM h EXCEPT SELECT * FROM d) x)
           + (SELECT count(*) FROM (SELECT * FROM d EXCEPT SELECT * FROM h) y))::int AS n`,
    [accountId],
  );
  return Number(row!.n);
}
