/** The sliding window of every per-minute limit, in ms. */
export const WINDOW_MS = 60_000;

/** A limit pair: requests and tokens per minute. */
export interface LimitValues {
  rpm: number;
  tpm: number;
}

/** What one decide call asks of the limits: who, its limits, its tokens, its request id and slot lease. */
export interface AdmitInput {
  keyId: string;
  accountId: string;
  mode: "live" | "test";
  key: LimitValues;
  account: LimitValues;
  concurrency: number;
  /** Test daily quota in tokens; 0 = none. */
  dailyQuota: number;
  day: string;
  tokens: number;
  requestId: string;
  leaseMs: number;
  now: number;
}

/** What the limits said of a call: admitted, or which limit refused it. */
export type Verdict = "ok" | "requests_per_minute" | "tokens_per_minute" | "concurrency" | "test_daily_quota";
const VERDICTS: Verdict[] = [
  "ok",
  "requests_per_minute",
  "tokens_per_minute",
  "concurrency",
  "test_daily_quota",
];

export interface LimitsOutcome {
  verdict: Verdict;
  /** Remaining after this call (min of key and account), never below 0. */
  remaining: LimitValues;
  /** For a refused rpm/tpm call: ms until every exhausted log has room for it (0 otherwise). */
  waitMs: number;
  /** ms until the key's oldest counted call leaves the window (the window when there is none). */
  resetMs: number;
}

/** Who the limits count for, and the UTC day of the test quota. */
export type LimitSubject = Pick<AdmitInput, "keyId" | "accountId" | "mode" | "day">;

/**
 * The eight keys of `take_limits` / `give_back`: four logs, the concurrency slots, the test quota's day, and
 * the running token sums of the two tpm logs.
 */
export function limitKeys(s: LimitSubject): string[] {
  const k = `rl:k:${s.keyId}`;
  const a = `rl:a:${s.accountId}:${s.mode}`;
  return [
    `${k}:rpm`,
    `${k}:tpm`,
    `${a}:rpm`,
    `${a}:tpm`,
    `rl:a:${s.accountId}:inflight`,
    `${a}:day:${s.day}`,
    `${k}:tpm:sum`,
    `${a}:tpm:sum`,
  ];
}

/** The `a` arguments of `take_limits` for one call. */
export function takeLimitsArgs(input: AdmitInput): (string | number)[] {
  return [
    input.now,
    WINDOW_MS,
    input.tokens,
    input.key.rpm,
    input.key.tpm,
    input.account.rpm,
    input.account.tpm,
    input.concurrency,
    input.dailyQuota,
    input.leaseMs,
    input.requestId,
  ];
}

/** `take_limits`' answer as a value. */
export function limitsOutcome(res: readonly number[]): LimitsOutcome {
  return {
    verdict: VERDICTS[res[0]!] ?? "ok",
    remaining: { rpm: Math.max(0, res[1]!), tpm: Math.max(0, res[2]!) },
    waitMs: res[3]!,
    resetMs: res[4]!,
  };
}
