import { errorText, logEvent } from "../observability/log";
import type { Database } from "./db";

/** Failures counted where they happen, read by the alerts (docs/operations.md). */
export type OpsSignal = "stripe_signature_failure" | "ledger_error";

/** Adds one to `signal`'s count of the current minute. */
export async function countSignal(db: Database, signal: OpsSignal): Promise<void> {
  await db.sql().query(
    `INSERT INTO ops_signal_counts (signal, minute, n) VALUES ($1, date_trunc('minute', now()), 1)
     ON CONFLICT (signal, minute) DO UPDATE SET n = ops_signal_counts.n + 1`,
    [signal],
  );
}

/** Each signal's count over the last `minutes` minutes (the current one included). */
export async function signalCounts(db: Database, minutes: number): Promise<Record<string, number>> {
  const rows = (await db.sql().query(
    `SELECT signal, sum(n)::float8 AS n FROM ops_signal_counts
     WHERE minute > date_trunc('minute', now()) - make_interval(mins => $1) GROUP BY signal`,
    [minutes],
  )) as { signal: string; n: number }[];
  return Object.fromEntries(rows.map((r) => [r.signal, Number(r.n)]));
}

/** Deletes counts older than a day (the alerts read 5 minutes; the rest is for a look back). */
export async function pruneSignalCounts(db: Database): Promise<void> {
  await db.sql().query("DELETE FROM ops_signal_counts WHERE minute < now() - interval '1 day'");
}

/** Refund intents older than `minutes`: how many, the oldest's age (s), their accounts. */
export async function staleRefundIntents(
  db: Database,
  minutes: number,
): Promise<{ count: number; oldestSeconds: number; accounts: string[] }> {
  const rows = (await db.sql().query(
    `SELECT count(*)::int AS n, coalesce(extract(epoch FROM now() - min(created_at)), 0)::float8 AS oldest,
       coalesce((array_agg(DISTINCT account_id))[1:5], '{}') AS accounts
     FROM ledger_refund_intents WHERE created_at < now() - make_interval(mins => $1)`,
    [minutes],
  )) as { n: number; oldest: number; accounts: string[] }[];
  const r = rows[0];
  return {
    count: Number(r?.n ?? 0),
    oldestSeconds: Math.round(Number(r?.oldest ?? 0)),
    accounts: r?.accounts ?? [],
  };
}

/** Decide calls of the last `seconds` seconds (usage events): all, 5xx, and 503 `no_capacity`. */
export async function recentDecideStatuses(
  db: Database,
  seconds: number,
): Promise<{ total: number; serverErrors: number; noCapacity: number }> {
  const rows = (await db.sql().query(
    `SELECT count(*)::int AS total, (count(*) FILTER (WHERE status >= 500))::int AS errors,
       (count(*) FILTER (WHERE status = 503 AND error_code = 'no_capacity'))::int AS no_capacity
     FROM usage_events WHERE created_at > now() - make_interval(secs => $1)`,
    [seconds],
  )) as { total: number; errors: number; no_capacity: number }[];
  const r = rows[0];
  return {
    total: Number(r?.total ?? 0),
    serverErrors: Number(r?.errors ?? 0),
    noCapacity: Number(r?.no_capacity ?? 0),
  };
}

/** Counts one failure for the alerts; never throws (a failure to count is logged, the caller's answer stands). */
export async function noteSignal(db: Database, signal: OpsSignal): Promise<void> {
  if (!db.configured) return;
  await countSignal(db, signal).catch((err) =>
    logEvent("warn", "ops_signal_not_counted", { signal, error: errorText(err) }),
  );
}
