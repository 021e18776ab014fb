import type { Redis } from "@upstash/redis";

/**
 * Every limit of one decide call checked and taken in ONE Lua script, all or nothing, so parallel calls
 * can never over-admit and a call refused by one limit takes nothing from the others.
 *
 * Windows (rpm, tpm) are Upstash's sliding-window estimate: the previous 60 s fixed window weighted by
 * how much of it still overlaps, plus the current one. Concurrency is a sorted set of request ids scored
 * by lease expiry (a crashed isolate's slot frees itself). The test daily quota is a per-UTC-day counter.
 */
const ADMIT = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local tokens = tonumber(ARGV[3])
local frac = 1 - ((now % win) / win)
local function est(cur, prev)
  return (tonumber(redis.call('GET', prev) or '0') * frac) + tonumber(redis.call('GET', cur) or '0')
end
-- limits: key rpm, key tpm, account rpm, account tpm
local q = { tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]) }
local cost = { 1, tokens, 1, tokens }
local rem = {}
local concQ = tonumber(ARGV[8])
local dayQ = tonumber(ARGV[9])
redis.call('ZREMRANGEBYSCORE', KEYS[9], '-inf', now)
local inflight = redis.call('ZCARD', KEYS[9])
local verdict = 0
if inflight >= concQ then verdict = 3 end
for i = 1, 4 do
  local used = est(KEYS[i], KEYS[i + 4])
  rem[i] = q[i] - used
  if verdict == 0 and used + cost[i] > q[i] then
    if i % 2 == 1 then verdict = 1 else verdict = 2 end
  end
end
local dayUsed = tonumber(redis.call('GET', KEYS[10]) or '0')
if verdict == 0 and dayQ > 0 and dayUsed + tokens > dayQ then verdict = 4 end
if verdict == 0 then
  for i = 1, 4 do
    redis.call('INCRBY', KEYS[i], cost[i])
    redis.call('PEXPIRE', KEYS[i], win * 2 + 1000)
    rem[i] = rem[i] - cost[i]
  end
  redis.call('ZADD', KEYS[9], now + tonumber(ARGV[10]), ARGV[11])
  redis.call('PEXPIRE', KEYS[9], tonumber(ARGV[10]) + 1000)
  if dayQ > 0 then
    redis.call('INCRBY', KEYS[10], tokens)
    redis.call('EXPIRE', KEYS[10], 90000)
  end
end
local rpm = math.floor(math.min(rem[1], rem[3]))
local tpm = math.floor(math.min(rem[2], rem[4]))
return { verdict, rpm, tpm }
`;

/** Gives back what an admitted call took (tokens, test quota) and/or frees its concurrency slot. */
const GIVE_BACK = `
local tokens = tonumber(ARGV[1])
if tokens > 0 then
  for i = 1, 3 do
    if KEYS[i] ~= '' and redis.call('EXISTS', KEYS[i]) == 1 then
      local v = tonumber(redis.call('GET', KEYS[i]))
      redis.call('DECRBY', KEYS[i], math.min(v, tokens))
    end
  end
end
if ARGV[2] ~= '' then redis.call('ZREM', KEYS[4], ARGV[2]) end
return 1
`;

const PEEK = `
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local frac = 1 - ((now % win) / win)
local out = {}
for i = 1, 4 do
  local used = (tonumber(redis.call('GET', KEYS[i + 4]) or '0') * frac) + tonumber(redis.call('GET', KEYS[i]) or '0')
  out[i] = math.floor(used)
end
return out
`;

export const WINDOW_MS = 60_000;

export interface LimitValues {
  rpm: number;
  tpm: number;
}

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

export type Verdict = "ok" | "requests_per_minute" | "tokens_per_minute" | "concurrency" | "test_daily_quota";
const VERDICTS: Verdict[] = [
  "ok",
  "requests_per_minute",
  "tokens_per_minute",
  "concurrency",
  "test_daily_quota",
];

export interface AdmitOutcome {
  verdict: Verdict;
  /** Remaining after this call (min of key and account), never below 0. */
  remaining: LimitValues;
  /** Keys to give tokens back to on a refund. */
  refundKeys: { keyTpm: string; accountTpm: string; day: string };
}

function windowKeys(prefix: string, kind: "rpm" | "tpm", now: number): [string, string] {
  const w = Math.floor(now / WINDOW_MS);
  return [`${prefix}:${kind}:${w}`, `${prefix}:${kind}:${w - 1}`];
}

function allKeys(input: Pick<AdmitInput, "keyId" | "accountId" | "mode" | "day">, now: number) {
  const k = `rl:k:${input.keyId}`;
  const a = `rl:a:${input.accountId}:${input.mode}`;
  const [krC, krP] = windowKeys(k, "rpm", now);
  const [ktC, ktP] = windowKeys(k, "tpm", now);
  const [arC, arP] = windowKeys(a, "rpm", now);
  const [atC, atP] = windowKeys(a, "tpm", now);
  return {
    keys: [
      krC,
      ktC,
      arC,
      atC,
      krP,
      ktP,
      arP,
      atP,
      `rl:a:${input.accountId}:inflight`,
      `${a}:day:${input.day}`,
    ],
    keyTpm: ktC,
    accountTpm: atC,
  };
}

/** Checks and takes rpm, tpm, concurrency and the test quota for one call, atomically. */
export async function admit(redis: Redis, input: AdmitInput): Promise<AdmitOutcome> {
  const { keys, keyTpm, accountTpm } = allKeys(input, input.now);
  const res = (await redis.eval(ADMIT, keys, [
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
  ])) as [number, number, number];
  return {
    verdict: VERDICTS[res[0]] ?? "ok",
    remaining: { rpm: Math.max(0, res[1]), tpm: Math.max(0, res[2]) },
    refundKeys: { keyTpm, accountTpm, day: input.dailyQuota > 0 ? keys[9]! : "" },
  };
}

/** Returns `tokens` to the tpm windows and test quota and/or frees the request's concurrency slot. */
export async function giveBack(
  redis: Redis,
  accountId: string,
  refund: { keyTpm: string; accountTpm: string; day: string } | null,
  tokens: number,
  requestId: string | null,
): Promise<void> {
  const keys = [
    refund?.keyTpm ?? "",
    refund?.accountTpm ?? "",
    refund?.day ?? "",
    `rl:a:${accountId}:inflight`,
  ];
  await redis.eval(GIVE_BACK, keys, [refund ? tokens : 0, requestId ?? ""]);
}

/** Used amounts (key rpm, key tpm, account rpm, account tpm) without taking anything. */
export async function peek(
  redis: Redis,
  input: Pick<AdmitInput, "keyId" | "accountId" | "mode" | "day">,
  now: number,
): Promise<[number, number, number, number]> {
  const { keys } = allKeys(input, now);
  return (await redis.eval(PEEK, keys.slice(0, 8), [now, WINDOW_MS])) as [number, number, number, number];
}

/** Tokens used today by the account's test keys. */
export async function testDayUsed(redis: Redis, accountId: string, day: string): Promise<number> {
  return Number((await redis.get<number>(`rl:a:${accountId}:test:day:${day}`)) ?? 0);
}
