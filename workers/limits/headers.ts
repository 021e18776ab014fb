import type { Context } from "hono";
import type { AppEnv } from "../context/app-env";
import { RATE_WINDOW_SECONDS, type RateLimitState, rateLimitPolicy } from "./key-limits";

/**
 * `ratelimit-policy` and `ratelimit` (spec: Common headers): quota, window, remaining and seconds to reset
 * for rpm and tpm. The one formatter of these headers; the 429's headers come from here too.
 */
export function rateLimitHeaders(s: RateLimitState): { "ratelimit-policy": string; ratelimit: string } {
  const int = (n: number) => String(Math.max(0, Math.floor(n)));
  const w = RATE_WINDOW_SECONDS;
  const t = int(s.resetSeconds);
  return {
    "ratelimit-policy": `"rpm";q=${int(s.policy.rpm)};w=${w}, "tpm";q=${int(s.policy.tpm)};w=${w}`,
    ratelimit: `"rpm";r=${int(s.remaining.rpm)};t=${t}, "tpm";r=${int(s.remaining.tpm)};t=${t}`,
  };
}

/** For a limiter: record the real remaining counts so the response headers show them. */
export function publishRateLimit(c: Context<AppEnv>, state: RateLimitState): void {
  c.set("rateLimit", state);
}

/**
 * Stamps both headers on the current response when the request is authenticated by an API key; until a
 * limiter reports, the key's full quota is shown.
 */
export function stampRateLimitHeaders(c: Context<AppEnv>): void {
  const key = c.get("apiKey");
  if (!key) return;
  const headers = rateLimitHeaders(c.get("rateLimit") ?? rateLimitPolicy(key));
  c.header("ratelimit-policy", headers["ratelimit-policy"]);
  c.header("ratelimit", headers.ratelimit);
}
