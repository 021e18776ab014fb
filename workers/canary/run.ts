import { findModel } from "../../schema/models";
import { Engine } from "../clients/engine";
import { GpuPool } from "../clients/gpu-pool";
import type { Services } from "../context/services";
import type { Env } from "../env";
import { logEvent } from "../observability/log";
import { buildServices } from "../services";
import { baselineOrRecord } from "../stores/canary-baselines";
import type { Database } from "../stores/db";
import { type AppFactory, appFactory } from "./app-factory";
import type { PoolWorker } from "./pool-workers";
import { readmeDecide } from "./readme-decide";

/** What one canary call found on one worker for one exact version. */
export interface CanaryCheck {
  worker: string;
  model: string;
  numericsClass: string;
  /** `recorded`: first sight of this version × class, its bytes are the reference from now on. */
  verdict: "ok" | "recorded" | "mismatch" | "server_error" | "refused" | "slow";
  status: number;
  ms: number;
  detail: string;
}

/** The default bound on one canary decide (`CANARY_LATENCY_MS`). */
export const DEFAULT_CANARY_LATENCY_MS = 20_000;
/** The `x-client-request-id` of the canary's decides: how to find them in the logs and usage events. */
export const CANARY_CLIENT_REQUEST_ID = "svc-canary";

/** A decide handled by the whole app with every service real but the GPU pool: that one worker, no fallback. */
type PinnedDecide = (workerUrl: string, request: Request) => Promise<Response>;

function pinnedDecide(env: Env, ctx: ExecutionContext): PinnedDecide {
  const createApp = appFactory();
  const apps = new Map<string, ReturnType<AppFactory>>();
  return (workerUrl, request) => {
    let app = apps.get(workerUrl);
    if (!app) {
      const pinned = (e: Env): Services => ({
        ...buildServices(e),
        engine: new Engine(new GpuPool([workerUrl], e.GPU_SIGNING_SECRET ?? ""), null),
      });
      app = createApp(pinned);
      apps.set(workerUrl, app);
    }
    return Promise.resolve(app.fetch(request, env, ctx));
  };
}

/** The parts of a Decision whose bytes a worker's numerics decide (ids, times and usage left out). */
function answerBytes(decision: Record<string, unknown>): string {
  return JSON.stringify({
    model: decision.model,
    calibration: decision.calibration,
    answers: decision.answers,
  });
}

/**
 * Sends the README's decide with the operator's key (`CANARY_API_KEY`) through the whole edge to each ready
 * worker, once per exact version it advertises, and compares the answer bytes with those recorded for that
 * version on the worker's advertised numerics class (the first seen are recorded). One worker at a time.
 */
export async function runCanary(
  env: Env,
  ctx: ExecutionContext,
  db: Database,
  workers: readonly PoolWorker[],
): Promise<CanaryCheck[]> {
  const key = env.CANARY_API_KEY ?? "";
  const bound = Number(env.CANARY_LATENCY_MS || DEFAULT_CANARY_LATENCY_MS);
  const decide = pinnedDecide(env, ctx);
  const checks: CanaryCheck[] = [];
  for (const w of workers) {
    if (!w.ready || !w.numericsClass) continue;
    const versions = w.models.filter((m) => {
      const v = findModel(m);
      return v?.served_by === "gpu" && v.status === "active";
    });
    for (const model of versions) {
      const check = await checkOne(decide, db, w.url, w.numericsClass, model, key, bound);
      logEvent(check.verdict === "ok" || check.verdict === "recorded" ? "info" : "error", "canary_check", {
        worker: check.worker,
        model: check.model,
        numerics_class: check.numericsClass,
        verdict: check.verdict,
        status: check.status,
        ms: check.ms,
      });
      checks.push(check);
    }
  }
  return checks;
}

async function checkOne(
  decide: PinnedDecide,
  db: Database,
  worker: string,
  numericsClass: string,
  model: string,
  key: string,
  boundMs: number,
): Promise<CanaryCheck> {
  const base = { worker, model, numericsClass };
  const t0 = Date.now();
  const res = await decide(
    worker,
    new Request("https://canary.internal/v1/decide", {
      method: "POST",
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
        "x-client-request-id": CANARY_CLIENT_REQUEST_ID,
        "user-agent": "svc-canary/1",
      },
      body: readmeDecide(model),
    }),
  );
  const text = await res.text();
  const ms = Date.now() - t0;
  const at = { ...base, status: res.status, ms };
  if (res.status >= 500) return { ...at, verdict: "server_error", detail: errorCode(text) };
  if (res.status !== 200) return { ...at, verdict: "refused", detail: errorCode(text) };
  const decision = JSON.parse(text) as Record<string, unknown>;
  if (decision.served_by !== "gpu")
    return { ...at, verdict: "refused", detail: `served by ${String(decision.served_by)}` };
  const bytes = answerBytes(decision);
  const baseline = await baselineOrRecord(db, model, numericsClass, { answers: bytes, recordedFrom: worker });
  if (baseline.answers !== bytes)
    return {
      ...at,
      verdict: "mismatch",
      detail: `answers differ from those recorded from ${baseline.recordedFrom}`,
    };
  if (ms > boundMs) return { ...at, verdict: "slow", detail: `${ms} ms, bound ${boundMs} ms` };
  return { ...at, verdict: baseline.recorded ? "recorded" : "ok", detail: "" };
}

function errorCode(text: string): string {
  try {
    const code = (JSON.parse(text) as { error?: { code?: unknown } }).error?.code;
    return typeof code === "string" ? code : "no error code";
  } catch {
    return "not JSON";
  }
}
