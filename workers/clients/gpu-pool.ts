import { EngineError, type ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import { signRequest } from "../../schema/signing";

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

interface WorkerState {
  url: string;
  inflight: number;
  /** Until when the worker is skipped after a failure (ms since epoch). */
  downUntil: number;
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
 * Signed client for a pool of GPU workers: least in-flight first (per isolate), a worker that fails is
 * skipped for a back-off and re-admitted after its `/readyz` answers 200; a call that fails for capacity
 * (connection refused or reset, timeout, 503 overloaded, 404 model not served) moves on to the next worker.
 */
export class GpuPool {
  private readonly workers: WorkerState[];
  private readonly timeoutMs: number;
  private readonly backoffMs: number;
  private readonly probeTimeoutMs: number;

  constructor(
    urls: readonly string[],
    private readonly secret: string,
    opts: GpuPoolOptions = {},
  ) {
    this.workers = urls.map((url) => ({ url: url.replace(/\/+$/, ""), inflight: 0, downUntil: 0 }));
    this.timeoutMs = opts.timeoutMs ?? 60_000;
    this.backoffMs = opts.backoffMs ?? 2_000;
    this.probeTimeoutMs = opts.probeTimeoutMs ?? 1_000;
  }

  get size(): number {
    return this.workers.length;
  }

  private async ready(w: WorkerState): Promise<boolean> {
    if (w.downUntil <= 0) return true;
    if (Date.now() < w.downUntil) return false;
    try {
      const res = await fetch(`${w.url}/readyz`, { signal: AbortSignal.timeout(this.probeTimeoutMs) });
      await res.body?.cancel();
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
   * Scores on the first worker that can; throws GpuPoolError when none could. Each call's deadline is
   * `timeoutMs` (default the pool's), never past `deadlineAt` (ms since epoch): no worker is tried after it.
   */
  async score(
    req: ScoreRequest,
    budget: { timeoutMs?: number; deadlineAt?: number } = {},
  ): Promise<ScoreResponse> {
    if (this.workers.length === 0) throw new GpuPoolError("no_capacity", "no GPU workers configured");
    const order = [...this.workers].sort((a, b) => a.downUntil - b.downUntil || a.inflight - b.inflight);
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
      if (!(await this.ready(w))) continue;
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
          return parsed.data;
        }
        const err = EngineError.safeParse(safeJson(text));
        const code = err.success ? err.data.error : `http_${res.status}`;
        // A worker whose context cannot hold this request is a capacity problem, never the caller's 500.
        if (code === "too_many_tokens")
          console.error(`gpu worker ${w.url} cannot hold request ${req.request_id}`);
        if (
          code === "overloaded" ||
          code === "too_many_tokens" ||
          code === "model_not_served" ||
          res.status === 503
        ) {
          lastReason = code;
          if (code === "overloaded" || code === "too_many_tokens") continue;
          w.downUntil = Date.now() + this.backoffMs;
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
