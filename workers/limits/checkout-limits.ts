import { ApiError } from "../errors";
import type { RedisAccess } from "../stores/redis";
import { takeFromWindow, type WindowLimit } from "../stores/sliding-window";
import { waitSeconds } from "./sign-in-limits";

/** Ours (docs/decisions.md): at most 10 plan checkouts an hour per account. */
export const PLAN_CHECKOUTS_PER_ACCOUNT: WindowLimit = {
  prefix: "svc:rl:checkouts:acct",
  limit: 10,
  windowSeconds: 3600,
};

/** The plan-checkout limit (a sliding window in Redis); a refused take throws 429 `checkouts_per_hour`. */
export class CheckoutLimiter {
  constructor(private readonly redis: RedisAccess) {}

  /** One plan checkout opened by the account. */
  async planCheckout(accountId: string): Promise<void> {
    const w = PLAN_CHECKOUTS_PER_ACCOUNT;
    const out = await takeFromWindow(this.redis, w, accountId);
    if (!out.success)
      throw new ApiError("checkouts_per_hour", {
        retryAfter: waitSeconds(out.resetAt, w.windowSeconds),
        message: "Too many plan checkouts were opened in the last hour; try again later.",
      });
  }
}
