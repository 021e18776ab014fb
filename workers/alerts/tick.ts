import { poolWorkers } from "../canary/pool-workers";
import { type CanaryCheck, runCanary } from "../canary/run";
import type { Env } from "../env";
import { errorText, logEvent } from "../observability/log";
import { type IncidentStore, postgresIncidents, redisIncidents } from "../stores/alert-incidents";
import { database } from "../stores/db";
import { pruneSignalCounts } from "../stores/ops-signals";
import { redisAccess } from "../stores/redis";
import { canaryCheck, poolCheck, postgresChecks, postgresUnknown, storeChecks } from "./checks";
import { type AlertName, type CheckResult, thresholds } from "./definitions";
import { applyCheck, memoryIncidents } from "./incidents";
import type { ProbeResult } from "./probes";
import { probePostgres, probeRedis } from "./probes";
import { notifyPending } from "./webhook";

/** Where both stores' alerts go when both stores are down (this isolate only: best effort). */
const isolateMemory = memoryIncidents();

/**
 * The Redis store of the Postgres-outage incident, whose finished incidents are written to Postgres as history
 * (Postgres answers again by then), so `GET /internal/alerts` and SQL show them with the others.
 */
function withHistory(store: IncidentStore, pg: IncidentStore | null): IncidentStore {
  return {
    ...store,
    async save(i) {
      const saved = await store.save(i);
      if (pg && i.resolvedAt !== null && i.resolveSentAt !== null)
        await pg
          .save({ ...i, id: undefined })
          .catch((err) => logEvent("warn", "alert_history_not_saved", { key: i.key, error: errorText(err) }));
      return saved;
    },
  };
}

/** What a tick saw and did (the operator routes answer it). */
export interface TickReport {
  redis: ProbeResult;
  postgres: ProbeResult;
  /** Workers listed and ready; null when the registry could not be read. */
  pool: { listed: number; ready: number } | null;
  canary: CanaryCheck[] | null;
  opened: string[];
  resolved: string[];
  sent: number;
}

export interface TickOptions {
  /** Evaluate the conditions read from the stores and probes (default true). */
  checks?: boolean;
  /** Run the canary (default true; only with `CANARY_API_KEY` and both stores up). */
  canary?: boolean;
}

/**
 * One evaluation (the `* * * * *` cron, or the operator routes): probes Redis, Postgres and the pool, runs the
 * canary, applies every observable check to its incidents and sends what is owed to `ALERT_WEBHOOK_URL`.
 * Incidents live in Postgres, except Postgres's own, which Redis keeps; with both down, both stores' alerts
 * live in this isolate's memory; the alerts read from Postgres are not evaluated while it is down.
 */
export async function runAlertTick(
  env: Env,
  ctx: ExecutionContext,
  opts: TickOptions = {},
): Promise<TickReport> {
  const now = Date.now();
  const db = database(env);
  const redis = redisAccess(env);
  const t = thresholds(env);
  const [redisDown, postgresDown, workers] = await Promise.all([
    probeRedis(redis),
    probePostgres(db),
    poolWorkers(env),
  ]);
  const pg = postgresDown === null ? postgresIncidents(db) : null;
  const rd = redisDown === null ? withHistory(redisIncidents(redis), pg) : null;
  const storeFor = (alert: AlertName): IncidentStore | null =>
    alert === "postgres_unreachable"
      ? (rd ?? isolateMemory)
      : alert === "redis_unreachable"
        ? (pg ?? isolateMemory)
        : pg;

  const wantChecks = opts.checks !== false;
  const wantCanary = opts.canary !== false && Boolean(env.CANARY_API_KEY) && pg !== null && rd !== null;
  const canary = wantCanary && workers ? await runCanary(env, ctx, db, workers) : null;
  const results: CheckResult[] = [canaryCheck(canary)];
  if (wantChecks) {
    results.push(...storeChecks(redisDown, postgresDown), poolCheck(workers, t));
    results.push(...(pg ? await postgresChecks(db, t).catch(() => postgresUnknown()) : postgresUnknown()));
  }

  const report: TickReport = {
    redis: redisDown,
    postgres: postgresDown,
    pool: workers && { listed: workers.length, ready: workers.filter((w) => w.ready).length },
    canary,
    opened: [],
    resolved: [],
    sent: 0,
  };
  for (const check of results) {
    const store = storeFor(check.alert);
    if (!store) continue;
    try {
      const { opened, resolved } = await applyCheck(store, check, now);
      report.opened.push(...opened);
      report.resolved.push(...resolved);
    } catch (err) {
      logEvent("error", "alert_state_not_saved", { alert: check.alert, error: errorText(err) });
    }
  }
  const environment = env.ENVIRONMENT ?? "unknown";
  for (const store of [pg, rd, isolateMemory]) {
    if (!store) continue;
    report.sent += await notifyPending(store, env.ALERT_WEBHOOK_URL, environment, now).catch((err) => {
      logEvent("error", "alert_notify_failed", { error: errorText(err) });
      return 0;
    });
  }
  if (pg) await pruneSignalCounts(db).catch(() => {});
  return report;
}
