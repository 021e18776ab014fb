import { dayOf } from "../../schema/periods";
import { ApiError } from "../errors";
import type { KeyRecord } from "../stores/keys";
import { type LimitValues, WINDOW_MS } from "../stores/rate-limit-keys";
import { giveBackTokens, peek, takeRequest, takeTokens } from "../stores/rate-limits";
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

/** Reads a key's rate-limit counts without taking anything (the decide path takes them in `decide/admission`). */
export class KeyRateLimiter {
  constructor(private readonly redis: RedisAccess) {}

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

  /**
   * Counts one request that is not a decide (creating an evaluation) against the key's and the account's
   * requests per minute, or 429 `requests_per_minute` with the real wait (the headers are read after the
   * handler, so they show it). Redis unreachable: `StoreUnavailableError` (503; nothing is created unlimited).
   */
  async takeRequest(subject: MoneySubject, id: string, now: number = Date.now()): Promise<void> {
    const limits = limitsFor(subject);
    const out = await this.redis.run((redis) =>
      takeRequest(
        redis,
        { keyId: subject.keyId, accountId: subject.accountId, mode: subject.mode, day: dayOf(now) },
        { key: limits.key.rpm, account: limits.account.rpm },
        id,
        now,
      ),
    );
    if (!out.taken)
      throw new ApiError("requests_per_minute", {
        retryAfter: waitSeconds(out.waitMs),
        message: `At most ${limits.key.rpm} requests a minute for this key.`,
      });
  }

  /**
   * Takes a batch line's tokens from the key's and the account's tokens per minute (issue 50: lines respect the
   * key's own limit and the account's caps, as its decides do; they take no request slot). Answers true, the wait
   * in ms until they fit, or null when they exceed a whole limit (they never fit). Redis down: throws.
   */
  async takeTokens(subject: MoneySubject, id: string, tokens: number, now: number = Date.now()) {
    const limits = limitsFor(subject);
    const out = await this.redis.run((redis) =>
      takeTokens(
        redis,
        { keyId: subject.keyId, accountId: subject.accountId, mode: subject.mode, day: dayOf(now) },
        { key: limits.key.tpm, account: limits.account.tpm },
        tokens,
        id,
        now,
      ),
    );
    return out.taken ? true : out.waitMs;
  }

  /** Gives back the tokens `takeTokens` took under `id` (the line did not finish charged). */
  async giveBackTokens(subject: MoneySubject, id: string, tokens: number, now: number = Date.now()) {
    await this.redis.run((redis) =>
      giveBackTokens(
        redis,
        { keyId: subject.keyId, accountId: subject.accountId, mode: subject.mode, day: dayOf(now) },
        tokens,
        id,
      ),
    );
  }
}
