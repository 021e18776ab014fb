import { Ratelimit } from "@upstash/ratelimit";
import type { RedisAccess } from "./redis";

/** One single-window limit: `limit` events per `windowSeconds`, kept under `prefix` in Redis. */
export interface WindowLimit {
  prefix: string;
  limit: number;
  windowSeconds: number;
}

/** What a take answered: allowed or not, what is left, and when the window frees up (epoch ms). */
export interface WindowOutcome {
  success: boolean;
  remaining: number;
  resetAt: number;
}

/**
 * Takes one event for `identifier` with @upstash/ratelimit's sliding window (its own Lua script, run through
 * the Upstash client). No fail-open timeout and no in-isolate cache: Redis down is a `StoreUnavailableError`.
 */
export function takeFromWindow(
  redis: RedisAccess,
  w: WindowLimit,
  identifier: string,
): Promise<WindowOutcome> {
  return redis.run(async (client) => {
    const limiter = new Ratelimit({
      redis: client,
      limiter: Ratelimit.slidingWindow(w.limit, `${w.windowSeconds} s`),
      prefix: w.prefix,
      analytics: false,
      ephemeralCache: false,
      timeout: 0,
    });
    const res = await limiter.limit(identifier);
    return { success: res.success, remaining: res.remaining, resetAt: res.reset };
  });
}
