import type { Env } from "../env";
import { ApiError } from "../errors";
import { dayOf, secondsToUtcMidnight } from "../ledger/periods";
import { type AdmitOutcome, admit, giveBack, type LimitValues, peek, WINDOW_MS } from "../stores/rate-limits";
import { StoreUnavailableError, withRedis } from "../stores/redis";

/** Who is calling, as far as limits and billing care. */
export interface MoneySubject {
  keyId: string;
  accountId: string;
  mode: "live" | "test";
  /** The key's own limits; clamped to the account caps. */
  keyLimits?: Partial<LimitValues> | null;
  /** Account caps when they differ from the mode's defaults. */
  accountLimits?: Partial<LimitValues> | null;
}

/** Spec defaults (Limits → Rate limits and quotas). */
export const DEFAULT_LIMITS: Record<"live" | "test", LimitValues> = {
  live: { rpm: 300, tpm: 300_000 },
  test: { rpm: 30, tpm: 40_000 },
};
/** Simultaneous decide calls per account (spec: "not shown"; see docs/decisions.md). */
export const CONCURRENCY: Record<"live" | "test", number> = { live: 256, test: 16 };
export const TEST_DAILY_QUOTA = 250_000;
/** A slot left by a crashed isolate frees itself after this long. */
export const SLOT_LEASE_MS = 120_000;

export interface Limits {
  key: LimitValues;
  account: LimitValues;
}

/** Effective limits: the key's own, never above the account's caps. */
export function limitsFor(s: MoneySubject): Limits {
  const d = DEFAULT_LIMITS[s.mode];
  const account = { rpm: s.accountLimits?.rpm ?? d.rpm, tpm: s.accountLimits?.tpm ?? d.tpm };
  const key = {
    rpm: Math.min(s.keyLimits?.rpm ?? account.rpm, account.rpm),
    tpm: Math.min(s.keyLimits?.tpm ?? account.tpm, account.tpm),
  };
  return { key, account };
}

/** What the `ratelimit` / `ratelimit-policy` headers report. */
export interface RateLimitState {
  policy: LimitValues;
  remaining: LimitValues;
  resetSeconds: number;
}

export function resetSeconds(now: number): number {
  return Math.max(1, Math.ceil((WINDOW_MS - (now % WINDOW_MS)) / 1000));
}

/** `ratelimit-policy` and `ratelimit` header values. */
export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    "ratelimit-policy": `"rpm";q=${s.policy.rpm};w=60, "tpm";q=${s.policy.tpm};w=60`,
    ratelimit: `"rpm";r=${s.remaining.rpm};t=${s.resetSeconds}, "tpm";r=${s.remaining.tpm};t=${s.resetSeconds}`,
  };
}

/** A taken admission: what to give back on a 5xx and the slot to free on every exit. */
export interface Admission {
  state: RateLimitState;
  release(): Promise<void>;
  refundTokens(): Promise<void>;
}

/**
 * Step 8 of the order of checks. Reports the real counts to `onState`, then throws 429 naming the
 * exhausted limit (nothing taken), or
 * StoreUnavailableError when Redis cannot be reached (the caller decides; see docs/decisions.md).
 */
export async function admitCall(
  env: Env,
  subject: MoneySubject,
  requestId: string,
  tokens: number,
  now: number = Date.now(),
  onState: (s: RateLimitState) => void = () => {},
): Promise<Admission> {
  const limits = limitsFor(subject);
  const policy = limits.key;
  const out: AdmitOutcome = await withRedis(env, (redis) =>
    admit(redis, {
      keyId: subject.keyId,
      accountId: subject.accountId,
      mode: subject.mode,
      key: limits.key,
      account: limits.account,
      concurrency: CONCURRENCY[subject.mode],
      dailyQuota: subject.mode === "test" ? TEST_DAILY_QUOTA : 0,
      day: dayOf(now),
      tokens,
      requestId,
      leaseMs: SLOT_LEASE_MS,
      now,
    }),
  );
  const state: RateLimitState = { policy, remaining: out.remaining, resetSeconds: resetSeconds(now) };
  onState(state);
  if (out.verdict !== "ok") {
    const retryAfter =
      out.verdict === "test_daily_quota"
        ? secondsToUtcMidnight(now)
        : out.verdict === "concurrency"
          ? 1
          : state.resetSeconds;
    throw new ApiError(out.verdict, { retryAfter, headers: rateLimitHeaders(state) });
  }
  let released = false;
  let refunded = false;
  return {
    state,
    async release() {
      if (released) return;
      released = true;
      await withRedis(env, (r) => giveBack(r, subject.accountId, null, 0, requestId)).catch(() => {});
    },
    async refundTokens() {
      if (refunded) return;
      refunded = true;
      await withRedis(env, (r) => giveBack(r, subject.accountId, out.refundKeys, tokens, null));
      state.remaining = {
        rpm: state.remaining.rpm,
        tpm: Math.min(state.remaining.tpm + tokens, policy.tpm),
      };
    },
  };
}

/** Current counts for routes that take nothing (headers on every authenticated response). */
export async function currentRateLimitState(
  env: Env,
  subject: MoneySubject,
  now: number = Date.now(),
): Promise<RateLimitState | null> {
  const limits = limitsFor(subject);
  try {
    const [kr, kt, ar, at] = await withRedis(env, (redis) =>
      peek(
        redis,
        { keyId: subject.keyId, accountId: subject.accountId, mode: subject.mode, day: dayOf(now) },
        now,
      ),
    );
    return {
      policy: limits.key,
      remaining: {
        rpm: Math.max(0, Math.min(limits.key.rpm - kr, limits.account.rpm - ar)),
        tpm: Math.max(0, Math.min(limits.key.tpm - kt, limits.account.tpm - at)),
      },
      resetSeconds: resetSeconds(now),
    };
  } catch (err) {
    if (err instanceof StoreUnavailableError) return null;
    throw err;
  }
}
