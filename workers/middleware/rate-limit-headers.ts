import type { Context } from "hono";
import { limitsFor } from "../decide/rate-limits";
import type { KeyRecord } from "../stores/keys";
import type { AppEnv } from "./context";

/** Window of `rpm` and `tpm`, seconds. */
export const RATE_WINDOW_SECONDS = 60;

/** One limit's state for the `ratelimit` header. */
export interface LimitState {
  readonly limit: number;
  readonly remaining: number;
  /** Whole seconds until the window resets. */
  readonly resetSeconds: number;
}

/** What a rate limiter reports for the current request. */
export interface RateLimitState {
  readonly rpm: LimitState;
  readonly tpm: LimitState;
}

/** A key's effective limits: its own limit capped by the account's cap (cap defaults by mode). */
export function effectiveLimits(key: KeyRecord): { rpm: number; tpm: number } {
  return limitsFor({
    keyId: key.id,
    accountId: key.accountId,
    mode: key.mode,
    keyLimits: { rpm: key.rpmLimit ?? undefined, tpm: key.tpmLimit ?? undefined },
    accountLimits: { rpm: key.account.rpmLimit ?? undefined, tpm: key.account.tpmLimit ?? undefined },
  }).key;
}

/** For the rate limiter: record real remaining counts so the response headers show them. */
export function setRateLimitState(c: Context<AppEnv>, state: RateLimitState): void {
  c.set("rateLimit", state);
}

/** `ratelimit-policy` and `ratelimit` header values for a key (full quota until a limiter reports). */
export function rateLimitHeaderValues(
  key: KeyRecord,
  state: RateLimitState | undefined,
): { policy: string; current: string } {
  const lim = effectiveLimits(key);
  const rpm = state?.rpm ?? { limit: lim.rpm, remaining: lim.rpm, resetSeconds: RATE_WINDOW_SECONDS };
  const tpm = state?.tpm ?? { limit: lim.tpm, remaining: lim.tpm, resetSeconds: RATE_WINDOW_SECONDS };
  const int = (n: number) => String(Math.max(0, Math.floor(n)));
  return {
    policy: `"rpm";q=${int(rpm.limit)};w=${RATE_WINDOW_SECONDS}, "tpm";q=${int(tpm.limit)};w=${RATE_WINDOW_SECONDS}`,
    current: `"rpm";r=${int(rpm.remaining)};t=${int(rpm.resetSeconds)}, "tpm";r=${int(tpm.remaining)};t=${int(tpm.resetSeconds)}`,
  };
}

/** Stamps both headers on the current response when the request is authenticated. */
export function stampRateLimitHeaders(c: Context<AppEnv>): void {
  const key = c.get("apiKey");
  if (!key) return;
  const { policy, current } = rateLimitHeaderValues(key, c.get("rateLimit"));
  c.header("ratelimit-policy", policy);
  c.header("ratelimit", current);
}
