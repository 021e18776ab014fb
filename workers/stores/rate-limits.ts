import type { Redis } from "@upstash/redis";

/**
 * Every limit of one decide call checked and taken in ONE Lua script, all or nothing, so parallel calls
 * can never over-admit and a call refused by one limit takes nothing from the others.
 *
 * rpm and tpm are exact sliding logs: a sorted set per limit of the admitted calls scored by time (tpm
 * members carry their tokens), so no 60-second span ever holds more than the quota, and a refused call
 * learns the real wait: the time until enough of the oldest calls leave the window for it to fit.
 * Concurrency is a sorted set of request ids scored by lease expiry (a crashed isolate's slot frees itself).
 * The test daily quota is a per-UTC-day counter.
 */
const LOGS = `
local function trim(log, now, win)
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - win)
end
-- used amount, and the wait (ms) until used - freed + cost <= q (0 when it already fits; -1 never fits)
local function usage(log, weighted, now, win, q, cost)
  local entries = redis.call('ZRANGE', log, 0, -1, 'WITHSCORES')
  local used = 0
  local amounts = {}
  for i = 1, #entries, 2 do
    local a = 1
    if weighted then a = tonumber(string.match(entries[i], ':(%d+)$')) end
    amounts[#amounts + 1] = { a, tonumber(entries[i + 1]) }
    used = used + a
  end
  if used + cost <= q then return used, 0, amounts end
  if cost > q then return used, -1, amounts end
  local freed = 0
  for _, e in ipairs(amounts) do
    freed = freed + e[1]
    if used - freed + cost <= q then return used, e[2] + win - now, amounts end
  end
  return used, win, amounts
end
`;

const ADMIT = `${LOGS}
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local tokens = tonumber(ARGV[3])
-- limits: key rpm, key tpm, account rpm, account tpm
local q = { tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]) }
local cost = { 1, tokens, 1, tokens }
local concQ = tonumber(ARGV[8])
local dayQ = tonumber(ARGV[9])
local id = ARGV[11]
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now)
local verdict = 0
if redis.call('ZCARD', KEYS[5]) >= concQ then verdict = 3 end
local rem = {}
local wait = 0
local oldest = win
for i = 1, 4 do
  trim(KEYS[i], now, win)
  local used, w, amounts = usage(KEYS[i], i % 2 == 0, now, win, q[i], cost[i])
  rem[i] = q[i] - used
  if w ~= 0 then
    if verdict == 0 then
      if i % 2 == 1 then verdict = 1 else verdict = 2 end
    end
    if w < 0 then w = win end
    if w > wait then wait = w end
  end
  if i <= 2 and #amounts > 0 and amounts[1][2] + win - now < oldest then oldest = amounts[1][2] + win - now end
end
local dayUsed = tonumber(redis.call('GET', KEYS[6]) or '0')
if verdict == 0 and dayQ > 0 and dayUsed + tokens > dayQ then verdict = 4 end
if verdict == 0 then
  for i = 1, 4 do
    local member = id
    if i % 2 == 0 then member = id .. ':' .. tokens end
    redis.call('ZADD', KEYS[i], now, member)
    redis.call('PEXPIRE', KEYS[i], win + 1000)
    rem[i] = rem[i] - cost[i]
  end
  if oldest > win then oldest = win end
  redis.call('ZADD', KEYS[5], now + tonumber(ARGV[10]), id)
  redis.call('PEXPIRE', KEYS[5], tonumber(ARGV[10]) + 1000)
  if dayQ > 0 then
    redis.call('INCRBY', KEYS[6], tokens)
    redis.call('EXPIRE', KEYS[6], 90000)
  end
end
local rpm = math.floor(math.min(rem[1], rem[3]))
local tpm = math.floor(math.min(rem[2], rem[4]))
return { verdict, rpm, tpm, wait, oldest }
`;

/** Gives back what an admitted call took from tpm and the test quota, and/or frees its concurrency slot. */
const GIVE_BACK = `
local tokens = tonumber(ARGV[1])
local id = ARGV[2]
if tokens > 0 then
  redis.call('ZREM', KEYS[1], id .. ':' .. tokens)
  redis.call('ZREM', KEYS[2], id .. ':' .. tokens)
  if KEYS[3] ~= '' and redis.call('EXISTS', KEYS[3]) == 1 then
    local v = tonumber(redis.call('GET', KEYS[3]))
    redis.call('DECRBY', KEYS[3], math.min(v, tokens))
  end
end
if ARGV[3] == '1' then redis.call('ZREM', KEYS[4], id) end
return 1
`;

const PEEK = `${LOGS}
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local out = {}
local oldest = win
for i = 1, 4 do
  trim(KEYS[i], now, win)
  local used, _, amounts = usage(KEYS[i], i % 2 == 0, now, win, 0, 0)
  out[i] = used
  if i <= 2 and #amounts > 0 and amounts[1][2] + win - now < oldest then oldest = amounts[1][2] + win - now end
end
out[5] = oldest
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
  /** For a refused rpm/tpm call: ms until every exhausted log has room for it (0 otherwise). */
  waitMs: number;
  /** ms until the key's oldest counted call leaves the window (the window when there is none). */
  resetMs: number;
}

type Subject = Pick<AdmitInput, "keyId" | "accountId" | "mode" | "day">;

function logKeys(s: Subject): string[] {
  const k = `rl:k:${s.keyId}`;
  const a = `rl:a:${s.accountId}:${s.mode}`;
  return [`${k}:rpm`, `${k}:tpm`, `${a}:rpm`, `${a}:tpm`];
}

const inflightKey = (accountId: string) => `rl:a:${accountId}:inflight`;
const dayKey = (s: Subject) => `rl:a:${s.accountId}:${s.mode}:day:${s.day}`;

/** Checks and takes rpm, tpm, concurrency and the test quota for one call, atomically. */
export async function admit(redis: Redis, input: AdmitInput): Promise<AdmitOutcome> {
  const keys = [...logKeys(input), inflightKey(input.accountId), dayKey(input)];
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
  ])) as [number, number, number, number, number];
  return {
    verdict: VERDICTS[res[0]] ?? "ok",
    remaining: { rpm: Math.max(0, res[1]), tpm: Math.max(0, res[2]) },
    waitMs: res[3],
    resetMs: res[4],
  };
}

/**
 * Gives an admitted call's `tokens` back to the tpm logs (and the test quota when `testQuota`), and/or frees
 * its concurrency slot (`releaseSlot`).
 */
export async function giveBack(
  redis: Redis,
  input: Subject & { requestId: string; tokens: number; testQuota: boolean; releaseSlot: boolean },
): Promise<void> {
  const logs = logKeys(input);
  const keys = [logs[1]!, logs[3]!, input.testQuota ? dayKey(input) : "", inflightKey(input.accountId)];
  await redis.eval(GIVE_BACK, keys, [input.tokens, input.requestId, input.releaseSlot ? "1" : "0"]);
}

/** Used amounts (key rpm, key tpm, account rpm, account tpm) and the reset in ms, without taking anything. */
export async function peek(
  redis: Redis,
  input: Subject,
  now: number,
): Promise<{ used: [number, number, number, number]; resetMs: number }> {
  const out = (await redis.eval(PEEK, logKeys(input), [now, WINDOW_MS])) as number[];
  return { used: [out[0]!, out[1]!, out[2]!, out[3]!], resetMs: out[4]! };
}
