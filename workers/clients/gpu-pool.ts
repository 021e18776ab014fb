import { EngineError, type ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { logEvent } from "../observability/log";
import { clampRetryAfter, LOAD_HEADER, speedDeadlineMs, WorkerLoad, waitSeconds } from "./gpu-load";
import { type PoolSource, staticSource } from "./gpu-registry";
import { safeJson, signedBy, signedPost } from "./gpu-signed-call";
import { learn, type Placement, WorkerRoster } from "./gpu-workers";

/** Why the pool could not answer: nobody could take it (capacity) or a worker answered wrongly (fault). */
/** `cancelled`: the caller's signal ended the call (client gone, leases lost); no other worker is tried. */
export type PoolFailure = "no_capacity" | "fault" | "cancelled";

export class GpuPoolError extends Error {
  constructor(
    readonly reason: PoolFailure,
    message: string,
    /** For `no_capacity` when the pool knows: seconds until a worker should be able to start the call (1–60). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}

/** What a call spent on GPU workers, summed over its attempts (the request log's `gpu_ms`, `gpu_attempts`). */
export interface GpuTrace {
  /** Calls sent to a worker's `/v1/score` (each worker tried counts once). */
  attempts: number;
  /** Wall time of those calls, in ms. */
  ms: number;
}

export interface GpuPoolOptions {
  /** Per-call deadline for `/v1/score`. */
  timeoutMs?: number;
  /** How long a failing worker is skipped before a `/readyz` probe may bring it back. */
  backoffMs?: number;
  probeTimeoutMs?: number;
}

const SCORE_PATH = "/v1/score";

/**
 * Signed client for a pool of GPU workers, listed statically or discovered from the registry: least in-flight
 * first (per isolate; ties by the load each worker last announced), among the workers that
 * advertise the call's exact version (and, for a replay, the original's numerics class). A worker that fails
 * is skipped for a back-off and re-admitted after its `/readyz` answers 200; a call that fails for capacity
 * (connection refused or reset, timeout, 503 overloaded, 413 too many tokens) moves on to the next worker; a
 * 404 `model_not_served` refreshes what that worker advertises and moves on.
 */
export class GpuPool {
  /** Which workers there are and which may take a call (`gpu-workers.ts`). */
  private readonly roster: WorkerRoster;
  private readonly timeoutMs: number;

  /** `source`: static base URLs (`GPU_POOL_URLS`), or the registry (`gpu-registry.ts`). */
  constructor(
    source: readonly string[] | PoolSource,
    private readonly secret: string,
    opts: GpuPoolOptions = {},
  ) {
    this.roster = new WorkerRoster(
      Array.isArray(source) ? staticSource(source) : (source as PoolSource),
      secret,
      { backoffMs: opts.backoffMs ?? 2_000, probeTimeoutMs: opts.probeTimeoutMs ?? 1_000 },
    );
    this.timeoutMs = opts.timeoutMs ?? 60_000;
  }

  /** Workers seen at the last call. */
  get size(): number {
    return this.roster.size;
  }

  /**
   * Scores on the first worker that can; throws GpuPoolError when none could. Each call's deadline is
   * `timeoutMs` (default the pool's), or, given the call's billable `tokens` and a worker that reported its
   * speed, `speedDeadlineMs`; never past `deadlineAt` (ms since epoch): no worker is tried after it. A worker
   * whose reported queue would not let the call start before `deadlineAt` is not called; when no worker could
   * (or every one answered `overloaded`), the error carries `retryAfter` = the shortest wait a worker reported
   * (queued tokens ÷ speed, 1–60 s).
   */
  async score(
    req: ScoreRequest,
    budget: {
      timeoutMs?: number;
      deadlineAt?: number;
      tokens?: number;
      signal?: AbortSignal;
      trace?: GpuTrace;
    } = {},
  ): Promise<ScoreResponse> {
    const order = await this.roster.ordered();
    if (order.length === 0) {
      logEvent("warn", "pool_empty", { request_id: req.request_id, model: req.model });
      throw new GpuPoolError("no_capacity", "no GPU workers configured");
    }
    const at: Placement = {
      model: req.model,
      ...(req.numerics_class && { numericsClass: req.numerics_class }),
    };
    const body = JSON.stringify(req);
    let lastReason = "no worker ready";
    // The shortest wait a busy worker reported (seconds), for an honest retry-after.
    let soonest = Infinity;
    const cancelled = () => new GpuPoolError("cancelled", `call ended: ${String(budget.signal?.reason)}`);
    for (const w of order) {
      if (budget.signal?.aborted) throw cancelled();
      if ((budget.deadlineAt ?? Infinity) - Date.now() <= 0) {
        lastReason = "dispatch deadline passed";
        break;
      }
      if (!(await this.roster.accepts(w, at))) continue;
      // What the worker last reported (its answers, or its `/readyz`) sets the deadline. Not known yet in this
      // isolate: ask once, so a first call is not cut by the fixed guess (a slow version on CPU outlasts it).
      if (budget.tokens !== undefined && !w.load.has(req.model) && !w.loadAsked) {
        w.loadAsked = true;
        if (!(await this.roster.probe(w)) || !(await this.roster.accepts(w, at))) continue;
      }
      const load = w.load.get(req.model);
      const bySpeed =
        budget.tokens === undefined || !load
          ? null
          : speedDeadlineMs(budget.tokens, {
              ...load,
              wait_tokens: waitSeconds(load, load.at) * load.tokens_per_second,
            });
      const left = (budget.deadlineAt ?? Infinity) - Date.now();
      // Whole milliseconds: AbortSignal.timeout refuses a fraction (a RangeError in Node).
      const timeoutMs = Math.max(1, Math.ceil(Math.min(bySpeed ?? budget.timeoutMs ?? this.timeoutMs, left)));
      if (load && load.tokens_per_second > 0) {
        const wait = waitSeconds(load, load.at);
        if (wait * 1000 >= left) {
          // Its queue would not let this call start before the deadline: say so at once, never after a timeout.
          soonest = Math.min(soonest, wait);
          lastReason = "queued work over the deadline";
          continue;
        }
      }
      w.inflight++;
      const sentAt = Date.now();
      if (budget.trace) budget.trace.attempts++;
      try {
        const res = await signedPost(this.secret, w.url, SCORE_PATH, body, timeoutMs, budget.signal);
        const text = await res.text();
        const reported = WorkerLoad.safeParse(safeJson(res.headers.get(LOAD_HEADER) ?? ""));
        if (reported.success) w.load.set(req.model, { ...reported.data, at: Date.now() });
        if (res.ok && !(await signedBy(this.secret, w.url, res, text, req.request_id))) {
          // Not what that worker said to this call (forged on the way, or another worker's): the worker failed.
          lastReason = "unsigned answer";
          this.roster.backOff(w);
          continue;
        }
        if (res.ok) {
          const parsed = ScoreResponse.safeParse(JSON.parse(text));
          if (!parsed.success) throw new GpuPoolError("fault", `bad score response from ${w.url}`);
          learn(w, req.model, parsed.data.numerics_class ?? null);
          return parsed.data;
        }
        const err = EngineError.safeParse(safeJson(text));
        const code = err.success ? err.data.error : `http_${res.status}`;
        // A worker whose context cannot hold this request is a capacity problem, never the caller's 500.
        if (code === "too_many_tokens")
          logEvent("error", "gpu_context_too_small", { worker: w.url, request_id: req.request_id });
        if (code === "model_not_served") {
          // Not a failure of the worker: it serves other versions or another class (redeployed?). Ask anew.
          lastReason = code;
          await this.roster.probe(w);
          continue;
        }
        if (code === "overloaded" || code === "too_many_tokens" || res.status === 503) {
          lastReason = code;
          if (code === "overloaded" && load && load.tokens_per_second > 0)
            soonest = Math.min(soonest, Math.max(waitSeconds(load, load.at), 1));
          if (code !== "overloaded" && code !== "too_many_tokens") this.roster.backOff(w);
          continue;
        }
        throw new GpuPoolError("fault", `GPU worker answered ${res.status} ${code}`);
      } catch (err) {
        if (err instanceof GpuPoolError) throw err;
        // Aborting the fetch closes the worker's connection: it stops at its next decode and frees the sequence.
        if (budget.signal?.aborted) throw cancelled();
        // Network failure, reset mid-request or timeout: the worker is suspect; try the next one. Not for a batch
        // call's timeout: batch work waits behind every live request by design (gpu-worker/src/lanes.ts).
        lastReason = err instanceof Error ? err.name : "network";
        if (!(req.priority === "batch" && lastReason === "TimeoutError")) this.roster.backOff(w);
      } finally {
        w.inflight--;
        if (budget.trace) budget.trace.ms += Date.now() - sentAt;
      }
    }
    throw new GpuPoolError(
      "no_capacity",
      lastReason,
      Number.isFinite(soonest) ? clampRetryAfter(soonest) : undefined,
    );
  }
}

/** The entries of a comma-separated URL list (`GPU_POOL_URLS`). */
export function poolUrls(urls: string | undefined): string[] {
  return (urls ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
}
