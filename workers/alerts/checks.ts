import type { PoolWorker } from "../canary/pool-workers";
import type { CanaryCheck } from "../canary/run";
import type { Database } from "../stores/db";
import { recentDecideStatuses, signalCounts, staleRefundIntents } from "../stores/ops-signals";
import type { CheckResult, Firing, Thresholds } from "./definitions";
import type { ProbeResult } from "./probes";

const one = (key: string, summary: string, detail = ""): Firing[] => [{ key, summary, detail }];

/** The two stores' own alerts, from their probes. */
export function storeChecks(redis: ProbeResult, postgres: ProbeResult): CheckResult[] {
  return [
    {
      alert: "redis_unreachable",
      forMs: 0,
      firing: redis === null ? [] : one("redis_unreachable", "Redis (Upstash) does not answer PING", redis),
    },
    {
      alert: "postgres_unreachable",
      forMs: 0,
      firing:
        postgres === null ? [] : one("postgres_unreachable", "Postgres does not answer SELECT 1", postgres),
    },
  ];
}

/** The pool: no worker listed, or none whose `/readyz` answers 200 (null: the registry could not be read). */
export function poolCheck(workers: readonly PoolWorker[] | null, t: Thresholds): CheckResult {
  const base = { alert: "gpu_pool_unavailable" as const, forMs: t.poolDownMs };
  if (workers === null) return { ...base, firing: null };
  if (workers.some((w) => w.ready)) return { ...base, firing: [] };
  const summary = workers.length
    ? `no GPU worker is ready (${workers.length} listed)`
    : "the GPU pool is empty (no worker listed or announced)";
  const detail = workers.map((w) => `${w.url}: ${w.status ?? "no answer"}`).join("; ");
  return { ...base, firing: one("gpu_pool_unavailable", summary, detail) };
}

/** One incident per worker the canary found wanting (mismatch, 5xx, refused, over its latency bound). */
export function canaryCheck(checks: readonly CanaryCheck[] | null): CheckResult {
  const base = { alert: "canary_mismatch" as const, forMs: 0 };
  if (checks === null) return { ...base, firing: null };
  const bad = new Map<string, CanaryCheck[]>();
  for (const c of checks)
    if (c.verdict !== "ok" && c.verdict !== "recorded") bad.set(c.worker, [...(bad.get(c.worker) ?? []), c]);
  return {
    ...base,
    firing: [...bad].map(([worker, cs]) => ({
      key: `canary:${worker}`,
      summary: `canary: worker ${worker}: ${cs.map((c) => `${c.model} on ${c.numericsClass} ${c.verdict}`).join(", ")}`,
      detail: cs
        .map((c) => `${c.model} ${c.verdict} (status ${c.status}, ${c.ms} ms) ${c.detail}`)
        .join("; "),
    })),
  };
}

/** The alerts read from Postgres: refund intents, the decides' 5xx share, the counted failures. */
export async function postgresChecks(db: Database, t: Thresholds): Promise<CheckResult[]> {
  const [stale, statuses, counts] = await Promise.all([
    staleRefundIntents(db, t.refundIntentMinutes),
    recentDecideStatuses(db, t.serverErrorWindowSeconds),
    signalCounts(db, t.windowMinutes),
  ]);
  const stripe = counts.stripe_signature_failure ?? 0;
  const ledger = counts.ledger_error ?? 0;
  return [
    {
      alert: "refund_intents_unsettled",
      forMs: 0,
      firing: stale.count
        ? one(
            "refund_intents_unsettled",
            `${stale.count} refund intent(s) unsettled for over ${t.refundIntentMinutes} min (oldest ${Math.round(stale.oldestSeconds / 60)} min)`,
            `accounts: ${stale.accounts.join(", ")}`,
          )
        : [],
    },
    serverErrorsCheck(statuses, t),
    {
      alert: "stripe_signature_failures",
      forMs: 0,
      firing:
        stripe >= t.stripeSignatureFailures
          ? one(
              "stripe_signature_failures",
              `${stripe} Stripe webhook(s) from Stripe's addresses with a bad signature over ${t.windowMinutes} min`,
            )
          : [],
    },
    {
      alert: "ledger_errors",
      forMs: 0,
      firing:
        ledger >= t.ledgerErrors
          ? one("ledger_errors", `${ledger} ledger Durable Object call(s) failed over ${t.windowMinutes} min`)
          : [],
    },
  ];
}

/** 5xx above `serverErrorShare` of the window's decides, and at least `serverErrorMin` of them. */
export function serverErrorsCheck(
  statuses: { total: number; serverErrors: number; noCapacity: number },
  t: Thresholds,
): CheckResult {
  const share = statuses.total ? statuses.serverErrors / statuses.total : 0;
  const fires = share > t.serverErrorShare && statuses.serverErrors >= t.serverErrorMin;
  return {
    alert: "server_errors",
    forMs: 0,
    firing: fires
      ? one(
          "server_errors",
          `${(share * 100).toFixed(1)} % of decides answered 5xx over ${windowText(t.serverErrorWindowSeconds)}`,
          `${statuses.serverErrors} of ${statuses.total}; 503 no_capacity: ${statuses.noCapacity}`,
        )
      : [],
  };
}

/** The Postgres checks as unobservable (Postgres down). */
export function postgresUnknown(): CheckResult[] {
  return (
    ["refund_intents_unsettled", "server_errors", "stripe_signature_failures", "ledger_errors"] as const
  ).map((alert) => ({ alert, forMs: 0, firing: null }));
}

const windowText = (seconds: number) => (seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`);
