import { ApiError } from "../errors";
import { logEvent } from "../observability/log";
import type { RedisAccess } from "../stores/redis";
import { takeFromWindow, type WindowLimit } from "../stores/sliding-window";
import { waitSeconds } from "./sign-in-limits";

/** Spec: GET /v1/plans, at most 120 requests a minute per client address. */
export const PLAN_LIST_PER_ADDRESS: WindowLimit = {
  prefix: "svc:rl:plans:addr",
  limit: 120,
  windowSeconds: 60,
};

/**
 * Ours (docs/decisions.md): bad Stripe signatures, at most 20 a minute per client network; past it → 429
 * `requests_per_minute` (issue 50 item 8: counted in Redis, never one Postgres write per forged post).
 */
export const STRIPE_SIGNATURE_FAILURES_PER_NETWORK: WindowLimit = {
  prefix: "svc:rl:stripe-sig:net",
  limit: 20,
  windowSeconds: 60,
};

/** Limits keyed by client address (the address the edge reports in `cf-connecting-ip`). */
export class AddressLimiter {
  constructor(private readonly redis: RedisAccess) {}

  /**
   * One public plan-list read → 429 `requests_per_minute` with the real wait. Redis unreachable: the read is
   * served (a public, read-only list must not fail because its limiter is down; the outage is logged).
   */
  async planListRead(address: string, now: number = Date.now()): Promise<void> {
    let out: Awaited<ReturnType<typeof takeFromWindow>>;
    try {
      out = await takeFromWindow(this.redis, PLAN_LIST_PER_ADDRESS, address);
    } catch {
      logEvent("error", "plan_list_limiter_unreachable", { served_without_limit: true });
      return;
    }
    if (!out.success)
      throw new ApiError("requests_per_minute", {
        retryAfter: waitSeconds(out.resetAt, PLAN_LIST_PER_ADDRESS.windowSeconds, now),
        message: "At most 120 plan-list requests a minute per client address.",
      });
  }

  /**
   * One bad Stripe signature from `network` → 429 `requests_per_minute` past the network's 20 a minute. Redis
   * unreachable: nothing counted (the caller answers 400 as it would; the outage is logged).
   */
  async stripeSignatureFailure(network: string, now: number = Date.now()): Promise<void> {
    const w = STRIPE_SIGNATURE_FAILURES_PER_NETWORK;
    let out: Awaited<ReturnType<typeof takeFromWindow>>;
    try {
      out = await takeFromWindow(this.redis, w, network);
    } catch {
      logEvent("error", "stripe_signature_limiter_unreachable", { counted: false });
      return;
    }
    if (!out.success)
      throw new ApiError("requests_per_minute", {
        retryAfter: waitSeconds(out.resetAt, w.windowSeconds, now),
        message: "Too many posts with a bad Stripe signature from this network.",
      });
  }
}
