import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import type { ModelVersion } from "../../schema/models";
import type { Env } from "../env";
import { ApiError } from "../errors";
import { errorText, logEvent } from "../observability/log";
import { type FallbackConfig, FallbackError, fallbackScore } from "./fallback";
import { GpuPool, GpuPoolError, type GpuTrace, poolUrls } from "./gpu-pool";
import { poolSource } from "./gpu-registry";

export interface Dispatched {
  served_by: "gpu" | "fallback";
  result: Omit<ScoreResponse, "meter" | "numerics_class">;
  /** The GPU worker's numerics class (null: the fallback, or a worker that reports none). */
  numerics_class?: string | null;
}

export interface DispatchOptions {
  /** The fallback version allowed for this call, or null (exact version, `never`, test key, replay). */
  fallback: ModelVersion | null;
  /** Billable input tokens: a GPU call's deadline grows with them (prefill dominates on long states). */
  tokens: number;
  /** A replay of a GPU original: only a worker of the original's numerics class may compute it. */
  numericsClass?: string;
  /** Ends the call early (the client went away, or its leases could not be renewed): 503, nothing tried after. */
  signal?: AbortSignal;
  /** Filled with the GPU attempts and their time (the request log), whether the call succeeds or not. */
  trace?: GpuTrace;
}

/**
 * A GPU call's deadline before its worker has reported a speed: 10 s plus 12 ms a token (a 16,384-token state
 * prefills in about a minute on a quiet 2-core CPU; twice that leaves room for load). Once it has, the pool uses
 * the worker's measured speed and queue instead (`speedDeadlineMs`, issue 30).
 */
export function gpuTimeoutMs(tokens: number): number {
  return 10_000 + 12 * tokens;
}

/**
 * The ceiling of one call: all of dispatch — every GPU attempt and the fallback — ends within it. Within it a
 * GPU attempt's deadline comes from the worker's measured speed; a decide keeps its concurrency slot and its
 * idempotency lease renewed meanwhile (`decide/call-hold.ts`), and is abandoned before its lease could lapse if
 * renewing fails, so an original never runs beside a retry. 15 minutes: the largest request the catalogue admits
 * on the default alias, on a 2-core CPU, fits (docs/benchmarks.md).
 */
export const DISPATCH_CEILING_MS = 15 * 60 * 1000;
const FALLBACK_TIMEOUT_MS = 30_000;

/**
 * A call its signal ended: a 5xx like any failed dispatch (refunded, record released). Nobody reads it when the
 * client has gone; the usage event keeps why.
 */
function cancelledCall(signal: AbortSignal | undefined): ApiError {
  return new ApiError("no_capacity", {
    message:
      signal?.reason === "client_gone"
        ? "The call was cancelled: the client closed the connection."
        : "The call was abandoned: its leases could not be renewed.",
  });
}

/** The hosted fallback's settings when all three variables are set, else null. */
export function fallbackConfig(env: Env): FallbackConfig | null {
  const { FALLBACK_BASE_URL: baseUrl, FALLBACK_DEPLOYMENT: deployment, FALLBACK_API_KEY: apiKey } = env;
  return baseUrl && deployment && apiKey ? { baseUrl, deployment, apiKey } : null;
}

/** The serving paths of an isolate: the signed GPU pool (its health kept across requests) and the fallback. */
export class Engine {
  constructor(
    private readonly pool: GpuPool,
    private readonly fallback: FallbackConfig | null,
  ) {}

  /** The engine of an env's variables: the GPU workers of `GPU_POOL_URLS`, else of the registry. */
  static fromEnv(env: Env): Engine {
    return new Engine(
      new GpuPool(poolSource(env, poolUrls(env.GPU_POOL_URLS)), env.GPU_SIGNING_SECRET ?? ""),
      fallbackConfig(env),
    );
  }

  /**
   * Step 10: the GPU pool first; when it has no capacity, the fallback if allowed. Throws 503
   * `no_capacity` (no GPU, no fallback allowed), 503 `upstream_unavailable` (both failed) or 500
   * `internal_error` (a worker answered wrongly).
   */
  async dispatch(req: ScoreRequest, opts: DispatchOptions): Promise<Dispatched> {
    const deadlineAt = Date.now() + DISPATCH_CEILING_MS;
    let retryAfter: number | undefined;
    try {
      const placed = opts.numericsClass ? { ...req, numerics_class: opts.numericsClass } : req;
      const {
        meter: _,
        numerics_class,
        ...result
      } = await this.pool.score(placed, {
        timeoutMs: gpuTimeoutMs(opts.tokens),
        deadlineAt,
        tokens: opts.tokens,
        ...(opts.signal && { signal: opts.signal }),
        ...(opts.trace && { trace: opts.trace }),
      });
      return { served_by: "gpu", result, numerics_class: numerics_class ?? null };
    } catch (err) {
      if (!(err instanceof GpuPoolError)) throw err;
      if (err.reason === "fault") {
        logEvent("error", "gpu_fault", { request_id: req.request_id, error: err.message });
        throw new ApiError("internal_error", { message: "Internal server error." });
      }
      if (err.reason === "cancelled") throw cancelledCall(opts.signal);
      retryAfter = err.retryAfter;
    }
    const fb = opts.fallback;
    if (!fb || !this.fallback) {
      // The pool's own estimate when it has one (queued work ÷ measured speed, 1–60 s), else the spec's.
      throw new ApiError("no_capacity", {
        message: "No GPU capacity is available for this model right now.",
        ...(retryAfter !== undefined && { retryAfter }),
      });
    }
    if (opts.signal?.aborted) throw cancelledCall(opts.signal);
    try {
      const timeoutMs = Math.max(1, Math.min(FALLBACK_TIMEOUT_MS, deadlineAt - Date.now()));
      const result = await fallbackScore({ ...this.fallback, timeoutMs }, { ...req, model: fb.id }, fb);
      return { served_by: "fallback", result };
    } catch (err) {
      logEvent("error", "fallback_failed", { request_id: req.request_id, error: errorText(err) });
      if (err instanceof FallbackError || err instanceof Error)
        throw new ApiError("upstream_unavailable", {
          message: "Neither the GPU pool nor the fallback could answer.",
        });
      throw err;
    }
  }
}
