import { dayOf, secondsToUtcMidnight } from "../../schema/periods";
import { ApiError } from "../errors";
import type { KeyRecord } from "../stores/keys";
import { type AdmitOutcome, admit, giveBack, type LimitValues, peek, WINDOW_MS } from "../stores/rate-limits";
import type { RedisAccess } from "../stores/redis";

/** Window of `rpm` and `tpm`, seconds. */
export const RATE_WINDOW_SECONDS = WINDOW_MS / 1000;

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

/** The one rate-limit state: what the `ratelimit` / `ratelimit-policy` headers report. */
export interface RateLimitState {
  policy: LimitValues;
  remaining: LimitValues;
  resetSeconds: number;
}

/** The limiter/ledger subject of a key. */
export function subjectOf(key: KeyRecord): MoneySubject {
  return {
    keyId: key.id,
    accountId: key.accountId,
    mode: key.mode,
    keyLimits: { rpm: key.rpmLimit ?? undefined, tpm: key.tpmLimit ?? undefined },
    accountLimits: { rpm: key.account.rpmLimit ?? undefined, tpm: key.account.tpmLimit ?? undefined },
  };
}

/**
 * Effective limits: the key's own, never above the account's caps. The account's caps are its live caps;
 * test keys always get the spec's test limits (30 rpm, 40,000 tpm), which their own limits may only lower.
 */
export function limitsFor(s: MoneySubject): Limits {
  const d = DEFAULT_LIMITS[s.mode];
  const caps = s.mode === "test" ? null : s.accountLimits;
  const account = { rpm: caps?.rpm ?? d.rpm, tpm: caps?.tpm ?? d.tpm };
  const key = {
    rpm: Math.min(s.keyLimits?.rpm ?? account.rpm, account.rpm),
    tpm: Math.min(s.keyLimits?.tpm ?? account.tpm, account.tpm),
  };
  return { key, account };
}

/** A key's policy with its full quota remaining (before any limiter has reported). */
export function rateLimitPolicy(key: KeyRecord): RateLimitState {
  const policy = limitsFor(subjectOf(key)).key;
  return { policy, remaining: { ...policy }, resetSeconds: RATE_WINDOW_SECONDS };
}

/** Whole seconds, 1 to the window, for a wait in ms (headers and `retry-after` never say 0). */
export function waitSeconds(ms: number): number {
  return Math.min(RATE_WINDOW_SECONDS, Math.max(1, Math.ceil(ms / 1000)));
}

/** A taken admission: what to give back on a 5xx and the slot to free on every exit. */
export interface Admission {
  state: RateLimitState;
  release(): Promise<void>;
  refundTokens(): Promise<void>;
}

/** Per-key and per-account rpm, tpm, concurrency and the test quota, over one atomic Redis script. */
export class KeyRateLimiter {
  constructor(private readonly redis: RedisAccess) {}

  /**
   * Step 8 of the order of checks. Reports the real counts to `onState`, then throws 429 naming the
   * exhausted limit (nothing taken), or StoreUnavailableError when Redis cannot be reached (the caller
   * decides; see docs/decisions.md).
   */
  async admit(
    subject: MoneySubject,
    requestId: string,
    tokens: number,
    onState: (s: RateLimitState) => void = () => {},
    now: number = Date.now(),
  ): Promise<Admission> {
    const limits = limitsFor(subject);
    const policy = limits.key;
    const out: AdmitOutcome = await this.redis.run((redis) =>
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
    const state: RateLimitState = {
      policy,
      remaining: out.remaining,
      resetSeconds: waitSeconds(out.resetMs),
    };
    onState(state);
    if (out.verdict !== "ok") {
      const retryAfter =
        out.verdict === "test_daily_quota"
          ? secondsToUtcMidnight(now)
          : out.verdict === "concurrency"
            ? undefined
            : waitSeconds(out.waitMs);
      throw new ApiError(out.verdict, { retryAfter });
    }
    const redis = this.redis;
    const subjectKeys = { ...subject, day: dayOf(now), requestId };
    let released = false;
    let refunded = false;
    return {
      state,
      async release() {
        if (released) return;
        released = true;
        await redis
          .run((r) => giveBack(r, { ...subjectKeys, tokens: 0, testQuota: false, releaseSlot: true }))
          .catch(() => {});
      },
      async refundTokens() {
        if (refunded) return;
        refunded = true;
        await redis.run((r) =>
          giveBack(r, { ...subjectKeys, tokens, testQuota: subject.mode === "test", releaseSlot: false }),
        );
        state.remaining = {
          rpm: state.remaining.rpm,
          tpm: Math.min(state.remaining.tpm + tokens, policy.tpm),
        };
      },
    };
  }

  /** Current counts for routes that take nothing (headers on every authenticated response); null when down. */
  async current(subject: MoneySubject, now: number = Date.now()): Promise<RateLimitState | null> {
    const limits = limitsFor(subject);
    try {
      const { used, resetMs } = await this.redis.run((redis) =>
        peek(
          redis,
          { keyId: subject.keyId, accountId: subject.accountId, mode: subject.mode, day: dayOf(now) },
          now,
        ),
      );
      const [kr, kt, ar, at] = used;
      return {
        policy: limits.key,
        remaining: {
          rpm: Math.max(0, Math.min(limits.key.rpm - kr, limits.account.rpm - ar)),
          tpm: Math.max(0, Math.min(limits.key.tpm - kt, limits.account.tpm - at)),
        },
        resetSeconds: waitSeconds(resetMs),
      };
    } catch {
      return null;
    }
  }
}
