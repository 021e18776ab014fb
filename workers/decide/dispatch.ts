import type { ScoreRequest, ScoreResponse } from "../../schema/engine-protocol";
import type { ModelVersion } from "../../schema/models";
import { FallbackError, fallbackScore } from "../engine/fallback";
import { GpuPoolError, poolFor } from "../engine/gpu-pool";
import type { Env } from "../env";
import { ApiError } from "../errors";

export const NO_CAPACITY_RETRY_AFTER = 2;
export const UPSTREAM_RETRY_AFTER = 5;

export interface Dispatched {
  served_by: "gpu" | "fallback";
  result: Omit<ScoreResponse, "meter">;
}

export interface DispatchOptions {
  /** The fallback version allowed for this call, or null (exact version, `never`, test key, replay). */
  fallback: ModelVersion | null;
}

/** True when the env has a hosted fallback configured. */
export function fallbackConfigured(env: Env): boolean {
  return Boolean(env.FALLBACK_BASE_URL && env.FALLBACK_DEPLOYMENT && env.FALLBACK_API_KEY);
}

/**
 * Step 10: the GPU pool first; when it has no capacity, the fallback if allowed. Throws 503
 * `no_capacity` (no GPU, no fallback allowed), 503 `upstream_unavailable` (both failed) or 500
 * `internal_error` (a worker answered wrongly).
 */
export async function dispatch(env: Env, req: ScoreRequest, opts: DispatchOptions): Promise<Dispatched> {
  try {
    const result = await poolFor(env.GPU_POOL_URLS, env.GPU_SIGNING_SECRET).score(req);
    return { served_by: "gpu", result };
  } catch (err) {
    if (!(err instanceof GpuPoolError)) throw err;
    if (err.reason === "fault") {
      console.error(`gpu fault request_id=${req.request_id}: ${err.message}`);
      throw new ApiError("internal_error", { message: "Internal server error." });
    }
  }
  const fb = opts.fallback;
  if (!fb || !fallbackConfigured(env)) {
    throw new ApiError("no_capacity", {
      retryAfter: NO_CAPACITY_RETRY_AFTER,
      message: "No GPU capacity is available for this model right now.",
    });
  }
  try {
    const result = await fallbackScore(
      {
        baseUrl: env.FALLBACK_BASE_URL!,
        deployment: env.FALLBACK_DEPLOYMENT!,
        apiKey: env.FALLBACK_API_KEY!,
      },
      { ...req, model: fb.id },
      fb,
    );
    return { served_by: "fallback", result };
  } catch (err) {
    console.error(
      `fallback failed request_id=${req.request_id}: ${err instanceof Error ? err.message : err}`,
    );
    if (err instanceof FallbackError || err instanceof Error)
      throw new ApiError("upstream_unavailable", {
        retryAfter: UPSTREAM_RETRY_AFTER,
        message: "Neither the GPU pool nor the fallback could answer.",
      });
    throw err;
  }
}
