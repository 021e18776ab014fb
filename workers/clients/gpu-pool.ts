import { z } from "zod";
import { EngineError, type ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import {
  READY_REQUEST_ID,
  SIGNATURE_HEADER,
  signRequest,
  TIMESTAMP_HEADER,
  verifyAnswer,
} from "../../schema/signing";
import { logEvent } from "../observability/log";
import { type PoolMember, type PoolSource, staticSource } from "./gpu-registry";

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

/**
 * What a worker last reported for one version (`x-svc-engine-load` on an answer, or `/readyz`'s `load`):
 * tokens evaluated per second of decode time, planned tokens queued in total and in its least loaded lane.
 */
export const WorkerLoad = z.object({
  tokens_per_second: z.number().nonnegative(),
  queued_tokens: z.number().nonnegative(),
  wait_tokens: z.number().nonnegative(),
  lanes: z.number().int().positive(),
});
export type WorkerLoad = z.infer<typeof WorkerLoad>;

/** Response header of a worker's answer with its `WorkerLoad` (gpu-worker/src/server.ts `LOAD_HEADER`). */
export const LOAD_HEADER = "x-svc-engine-load";

/**
 * Tokens a worker evaluates for a call of `tokens` billable tokens: the framing, the questions' prompts and labels
 * and a content-free pass come on top, and attention makes each token dearer as the state grows. An upper
 * estimate (fitted loosely on the 2-core box, docs/benchmarks.md "Mixed load"), for deadlines, not for billing.
 */
export const evaluatedEstimate = (tokens: number) => (tokens + 200) * 1.5 * (1 + tokens / 4096);

/**
 * A call's deadline from the worker's measured speed: 10 s plus three times the estimated wait (its least
 * loaded lane's queue) and run. Null while the worker has measured nothing (the caller's fixed deadline holds).
 */
export function speedDeadlineMs(tokens: number, load: WorkerLoad | undefined): number | null {
  if (!load || !(load.tokens_per_second > 0)) return null;
  return 10_000 + (3_000 * (load.wait_tokens + evaluatedEstimate(tokens))) / load.tokens_per_second;
}

/**
 * Seconds until the worker should be able to start a new call: its least loaded lane's queue ÷ its speed, less
 * the time since it reported it (`at`, ms since epoch), so a stale report expires instead of refusing for ever.
 */
export const waitSeconds = (load: WorkerLoad, at = Date.now(), now = Date.now()) =>
  Math.max(0, load.wait_tokens / load.tokens_per_second - (now - at) / 1000);

/** The spec's `retry-after` range for a 503: whole seconds, 1 to 60. */
export const clampRetryAfter = (seconds: number) => Math.min(60, Math.max(1, Math.ceil(seconds)));

/** What a worker said it serves (`/readyz`, or learned from its answers): exact versions × numerics class. */
interface Advert {
  /** Null: the worker reports no class (a stand-in, an old build). */
  numericsClass: string | null;
  /** Null: not yet known (learned from `/readyz`). */
  models: Set<string> | null;
}

interface WorkerState {
  url: string;
  inflight: number;
  /** Until when the worker is skipped after a failure (ms since epoch). */
  downUntil: number;
  /** Null until the registry, the worker's `/readyz` or an answer said what it serves. */
  advert: Advert | null;
  /** The registry advert last applied (its `announced_at`), so a newer heartbeat replaces what was learned. */
  announcedAt: number;
  /** Load per sequence at the last heartbeat (registry only; 0 for a static URL). */
  announcedLoad: number;
  /** Per version, the speed and queued work the worker last reported (its answers' header, `/readyz`). */
  load: Map<string, WorkerLoad & { at: number }>;
  /** Whether `/readyz` was asked for the load yet (once: a worker that reports none keeps the fixed deadline). */
  loadAsked: boolean;
}

/** Where a call may go: the exact version, and for a replay the numerics class of the original. */
export interface Placement {
  model: string;
  numericsClass?: string;
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
  private readonly source: PoolSource;
  /** What this isolate knows of each worker (back-off, in-flight, advert), kept across registry refreshes. */
  private readonly states = new Map<string, WorkerState>();
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly probeTimeoutMs: number;
  private lastSize = 0;

  /** `source`: static base URLs (`GPU_POOL_URLS`), or the registry (`gpu-registry.ts`). */
  constructor(
    source: readonly string[] | PoolSource,
    private readonly secret: string,
    opts: GpuPoolOptions = {},
  ) {
    this.source = Array.isArray(source) ? staticSource(source) : (source as PoolSource);
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.backoffMs = opts.backoffMs ?? 2_000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 1_000;
  }

  /** Workers seen at the last call. */
  get size(): number {
    return this.lastSize;
  }

  /** The state of each member now, a registry advert applied when it is newer than what the pool knew. */
  private async workers(): Promise<WorkerState[]> {
    const members = await this.source.members();
    const out = members.map((m) => this.stateOf(m));
    if (this.states.size > members.length * 2 + 8) {
      const keep = new Set(members.map((m) => m.url));
      for (const url of this.states.keys()) if (!keep.has(url)) this.states.delete(url);
    }
    this.lastSize = out.length;
    return out;
  }

  private stateOf(m: PoolMember): WorkerState {
    let w = this.states.get(m.url);
    if (!w) {
      w = {
        url: m.url,
        inflight: 0,
        downUntil: 0,
        advert: null,
        announcedAt: 0,
        announcedLoad: 0,
        load: new Map(),
        loadAsked: false,
      };
      this.states.set(m.url, w);
    }
    const a = m.advert;
    if (a && a.announced_at !== w.announcedAt) {
      w.announcedAt = a.announced_at;
      w.advert = { numericsClass: a.numerics_class, models: new Set(a.models) };
      w.announcedLoad = a.in_flight / a.sequences;
    }
    return w;
  }

  /** Whether `res` (read as `text`) is signed by the worker at `w` for `requestId` (`schema/signing.ts`). */
  private async signedBy(w: WorkerState, res: Response, text: string, requestId: string): Promise<boolean> {
    const verdict = await verifyAnswer(
      this.secret,
      { origin: w.url, requestId, body: text },
      res.headers.get(TIMESTAMP_HEADER),
      res.headers.get(SIGNATURE_HEADER),
    );
    if (!verdict.ok) logEvent("error", "gpu_answer_refused", { worker: w.url, signature: verdict.reason });
    return verdict.ok;
  }

  /**
   * Asks `/readyz` (a signed call; its answer must be signed too): ready or not, and what the worker advertises.
   * A failed probe, or an answer not signed by that worker, backs the worker off.
   */
  private async probe(w: WorkerState): Promise<boolean> {
    try {
      const headers = await signRequest(this.secret, {
        method: "GET",
        origin: w.url,
        path: "/readyz",
        body: "",
      });
      const res = await fetch(`${w.url}/readyz`, {
        headers,
        signal: AbortSignal.timeout(this.probeTimeoutMs),
      });
      const text = await res.text();
      if (res.ok && !(await this.signedBy(w, res, text, READY_REQUEST_ID))) throw new Error("unsigned");
      const body = ReadyAdvert.safeParse(safeJson(text));
      w.advert = body.success
        ? { numericsClass: body.data.numerics_class, models: new Set(body.data.models) }
        : { numericsClass: null, models: null };
      if (body.success)
        for (const [v, l] of Object.entries(body.data.load ?? {})) w.load.set(v, { ...l, at: Date.now() });
      if (res.ok) {
        w.downUntil = 0;
        return true;
      }
    } catch {
      // still down
    }
    w.downUntil = Date.now() + this.backoffMs;
    return false;
  }

  /**
   * Whether `w` may take a call placed at `at`: it is up (a backed-off worker is probed again once its back-off
   * passed) and it advertises the version and, for a replay, the original's class. A worker not yet known is
   * probed first only when a class is required; otherwise the call itself tells what it serves.
   */
  private async accepts(w: WorkerState, at: Placement): Promise<boolean> {
    if (w.downUntil > 0) {
      if (Date.now() < w.downUntil || !(await this.probe(w))) return false;
    } else if (!w.advert && at.numericsClass && !(await this.probe(w))) return false;
    const a = w.advert;
    if (!a) return true;
    if (a.models && !a.models.has(at.model)) return false;
    return !at.numericsClass || a.numericsClass === at.numericsClass;
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
    const workers = await this.workers();
    if (workers.length === 0) {
      logEvent("warn", "pool_empty", { request_id: req.request_id, model: req.model });
      throw new GpuPoolError("no_capacity", "no GPU workers configured");
    }
    const order = workers.sort(
      (a, b) => a.downUntil - b.downUntil || a.inflight - b.inflight || a.announcedLoad - b.announcedLoad,
    );
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
      if (!(await this.accepts(w, at))) continue;
      // What the worker last reported (its answers, or its `/readyz`) sets the deadline. Not known yet in this
      // isolate: ask once, so a first call is not cut by the fixed guess (a slow version on CPU outlasts it).
      if (budget.tokens !== undefined && !w.load.has(req.model) && !w.loadAsked) {
        w.loadAsked = true;
        if (!(await this.probe(w)) || !(await this.accepts(w, at))) continue;
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
        const headers = await signRequest(this.secret, {
          method: "POST",
          origin: w.url,
          path: SCORE_PATH,
          body,
        });
        const res = await fetch(`${w.url}${SCORE_PATH}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
          signal: budget.signal
            ? AbortSignal.any([AbortSignal.timeout(timeoutMs), budget.signal])
            : AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        const reported = WorkerLoad.safeParse(safeJson(res.headers.get(LOAD_HEADER) ?? ""));
        if (reported.success) w.load.set(req.model, { ...reported.data, at: Date.now() });
        if (res.ok && !(await this.signedBy(w, res, text, req.request_id))) {
          // Not what that worker said to this call (forged on the way, or another worker's): the worker failed.
          lastReason = "unsigned answer";
          w.downUntil = Date.now() + this.backoffMs;
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
          await this.probe(w);
          continue;
        }
        if (code === "overloaded" || code === "too_many_tokens" || res.status === 503) {
          lastReason = code;
          if (code === "overloaded" && load && load.tokens_per_second > 0)
            soonest = Math.min(soonest, Math.max(waitSeconds(load, load.at), 1));
          if (code !== "overloaded" && code !== "too_many_tokens") w.downUntil = Date.now() + this.backoffMs;
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
        if (!(req.priority === "batch" && lastReason === "TimeoutError"))
          w.downUntil = Date.now() + this.backoffMs;
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

/** A worker's `/readyz` body (`gpu-worker/src/server.ts`). */
const ReadyAdvert = z.object({
  numerics_class: z.string(),
  models: z.array(z.string()),
  /** Per version, speed and queued work (issue 30); absent from older workers and stand-ins. */
  load: z.record(z.string(), WorkerLoad).optional(),
});

/** What an answer tells of its worker: its class, and that it serves `model`. */
function learn(w: WorkerState, model: string, numericsClass: string | null): void {
  if (!w.advert || w.advert.numericsClass !== numericsClass)
    w.advert = { numericsClass, models: w.advert?.models ?? null };
  w.advert.models?.add(model);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** The entries of a comma-separated URL list (`GPU_POOL_URLS`). */
export function poolUrls(urls: string | undefined): string[] {
  return (urls ?? "")
    .split(",")
    .map((u) => u.trim())
    .filter(Boolean);
}
