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
}
