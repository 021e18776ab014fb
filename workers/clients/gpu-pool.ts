import { z } from "zod";
import { EngineError, type ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { signRequest } from "../../schema/signing";
import { type PoolMember, type PoolSource, staticSource } from "./gpu-registry";

/** Why the pool could not answer: nobody could take it (capacity) or a worker answered wrongly (fault). */
export type PoolFailure = "no_capacity" | "fault";

export class GpuPoolError extends Error {
  constructor(
    readonly reason: PoolFailure,
    message: string,
  ) {
    super(message);
  }
}

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
}

/** Where a call may go: the exact version, and for a replay the numerics class of the original. */
export interface Placement {
  model: string;
  numericsClass?: string;
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
      w = { url: m.url, inflight: 0, downUntil: 0, advert: null, announcedAt: 0, announcedLoad: 0 };
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

  /** Asks `/readyz`: ready or not, and what the worker advertises. A failed probe backs the worker off. */
  private async probe(w: WorkerState): Promise<boolean> {
    try {
      const res = await fetch(`${w.url}/readyz`, { signal: AbortSignal.timeout(this.probeTimeoutMs) });
      const body = ReadyAdvert.safeParse(safeJson(await res.text()));
      w.advert = body.success
        ? { numericsClass: body.data.numerics_class, models: new Set(body.data.models) }
        : { numericsClass: null, models: null };
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
   * `timeoutMs` (default the pool's), never past `deadlineAt` (ms since epoch): no worker is tried after it.
   */
  async score(
    req: ScoreRequest,
    budget: { timeoutMs?: number; deadlineAt?: number } = {},
  ): Promise<ScoreResponse> {
    const workers = await this.workers();
    if (workers.length === 0) throw new GpuPoolError("no_capacity", "no GPU workers configured");
    const order = workers.sort(
      (a, b) => a.downUntil - b.downUntil || a.inflight - b.inflight || a.announcedLoad - b.announcedLoad,
    );
    const at: Placement = {
      model: req.model,
      ...(req.numerics_class && { numericsClass: req.numerics_class }),
    };
    const body = JSON.stringify(req);
    let lastReason = "no worker ready";
    for (const w of order) {
      const timeoutMs = Math.min(
        budget.timeoutMs ?? this.timeoutMs,
        (budget.deadlineAt ?? Infinity) - Date.now(),
      );
      if (timeoutMs <= 0) {
        lastReason = "dispatch deadline passed";
        break;
      }
      if (!(await this.accepts(w, at))) continue;
      w.inflight++;
      try {
        const headers = await signRequest(this.secret, { method: "POST", path: SCORE_PATH, body });
        const res = await fetch(`${w.url}${SCORE_PATH}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body,
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
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
          console.error(`gpu worker ${w.url} cannot hold request ${req.request_id}`);
        if (code === "model_not_served") {
          // Not a failure of the worker: it serves other versions or another class (redeployed?). Ask anew.
          lastReason = code;
          await this.probe(w);
          continue;
        }
        if (code === "overloaded" || code === "too_many_tokens" || res.status === 503) {
          lastReason = code;
          if (code !== "overloaded" && code !== "too_many_tokens") w.downUntil = Date.now() + this.backoffMs;
          continue;
        }
        throw new GpuPoolError("fault", `GPU worker answered ${res.status} ${code}`);
      } catch (err) {
        if (err instanceof GpuPoolError) throw err;
        // Network failure, reset mid-request or timeout: the worker is suspect; try the next one.
        lastReason = err instanceof Error ? err.name : "network";
        w.downUntil = Date.now() + this.backoffMs;
      } finally {
        w.inflight--;
      }
    }
    throw new GpuPoolError("no_capacity", lastReason);
  }
}

/** A worker's `/readyz` body (`gpu-worker/src/server.ts`). */
const ReadyAdvert = z.object({ numerics_class: z.string(), models: z.array(z.string()) });

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
