import type { Redis } from "@upstash/redis";

/**
 * Every limit of one decide call checked and taken in ONE Lua script, all or nothing, so parallel calls
 * can never over-admit and a call refused by one limit takes nothing from the others.
 *
 * rpm and tpm are exact sliding logs: a sorted set per limit of the admitted calls scored by time (tpm
 * members carry their tokens), so no 60-second span ever holds more than the quota, and a refused call
 * learns the real wait: the time until enough of the oldest calls leave the window for it to fit.
 * An admitted call costs O(log n): rpm is the log's size, tpm a running sum kept next to its log (entries
 * leaving the window are subtracted as they are trimmed; a missing sum is counted from the log once); only a
 * refused tpm call walks its log for the wait.
 * Concurrency is a sorted set of request ids scored by lease expiry (a crashed isolate's slot frees itself).
 * The test daily quota is a per-UTC-day counter.
 */
const LOGS = `
local function tokens_of(member)
  return tonumber(string.match(member, ':(%d+)$'))
end
-- sum = the running-sum key of a tpm log, nil for an rpm log
local function trim(log, sum, now, win)
  if sum and redis.call('EXISTS', sum) == 1 then
    local gone = 0
    for _, m in ipairs(redis.call('ZRANGEBYSCORE', log, '-inf', now - win)) do gone = gone + tokens_of(m) end
    if gone > 0 then redis.call('DECRBY', sum, gone) end
  end
  redis.call('ZREMRANGEBYSCORE', log, '-inf', now - win)
end
local function used_of(log, sum, win)
  local n = redis.call('ZCARD', log)
  if not sum or n == 0 then
    if sum then redis.call('DEL', sum) end
    return n
  end
  local v = redis.call('GET', sum)
  if v then return tonumber(v) end
  local t = 0
  for _, m in ipairs(redis.call('ZRANGE', log, 0, -1)) do t = t + tokens_of(m) end
  redis.call('SET', sum, t, 'PX', win + 1000)
  return t
end
-- ms until the log's oldest entry leaves the window, or nil when it is empty
local function oldest_wait(log, now, win)
  local e = redis.call('ZRANGE', log, 0, 0, 'WITHSCORES')
  if #e == 0 then return nil end
  return tonumber(e[2]) + win - now
end
-- used amount, and the wait (ms) until used - freed + cost <= q (0 when it already fits; -1 never fits)
local function usage(log, sum, now, win, q, cost)
  local used = used_of(log, sum, win)
  if used + cost <= q then return used, 0 end
  if cost > q then return used, -1 end
  if not sum then
    local e = redis.call('ZRANGE', log, used + cost - q - 1, used + cost - q - 1, 'WITHSCORES')
    if #e == 0 then return used, win end
    return used, tonumber(e[2]) + win - now
  end
  local entries = redis.call('ZRANGE', log, 0, -1, 'WITHSCORES')
  local freed = 0
  for i = 1, #entries, 2 do
    freed = freed + tokens_of(entries[i])
    if used - freed + cost <= q then return used, tonumber(entries[i + 1]) + win - now end
  end
  return used, win
end
-- k: the six limit keys then the two tpm sums; the sum of log i (tpm logs 2 and 4), or nil
local function sum_of(k, i)
  if i == 2 then return k[7] end
  if i == 4 then return k[8] end
  return nil
end
`;

/**
 * `take_limits(k, a)`: k = {key rpm log, key tpm log, account rpm log, account tpm log, inflight, day, key tpm
 * sum, account tpm sum}; a = {now, win, tokens, q1..q4, concurrency, day quota, slot lease, id}. Checks every
 * limit and takes all of them or nothing; returns {verdict, rpm left, tpm left, wait ms, reset ms}.
 */
export const TAKE_LIMITS = `${LOGS}
local function take_limits(k, a)
  local now, win, tokens = a[1], a[2], a[3]
  local q = { a[4], a[5], a[6], a[7] }
  local cost = { 1, tokens, 1, tokens }
  local concQ, dayQ, lease, id = a[8], a[9], a[10], a[11]
  redis.call('ZREMRANGEBYSCORE', k[5], '-inf', now)
  local verdict = 0
  if redis.call('ZCARD', k[5]) >= concQ then verdict = 3 end
  local rem = {}
  local wait = 0
  local oldest = win
  for i = 1, 4 do
    trim(k[i], sum_of(k, i), now, win)
    local used, w = usage(k[i], sum_of(k, i), now, win, q[i], cost[i])
    rem[i] = q[i] - used
    if w ~= 0 then
      if verdict == 0 then
        if i % 2 == 1 then verdict = 1 else verdict = 2 end
      end
      if w < 0 then w = win end
      if w > wait then wait = w end
    end
    if i <= 2 then
      local o = oldest_wait(k[i], now, win)
      if o and o < oldest then oldest = o end
    end
  end
  local dayUsed = tonumber(redis.call('GET', k[6]) or '0')
  if verdict == 0 and dayQ > 0 and dayUsed + tokens > dayQ then verdict = 4 end
  if verdict == 0 then
    for i = 1, 4 do
      local member = id
      if i % 2 == 0 then member = id .. ':' .. tokens end
      redis.call('ZADD', k[i], now, member)
      redis.call('PEXPIRE', k[i], win + 1000)
      local sum = sum_of(k, i)
      if sum then
        redis.call('INCRBY', sum, tokens)
        redis.call('PEXPIRE', sum, win + 1000)
      end
      rem[i] = rem[i] - cost[i]
    end
    redis.call('ZADD', k[5], now + lease, id)
    redis.call('PEXPIRE', k[5], lease + 1000)
    if dayQ > 0 then
      redis.call('INCRBY', k[6], tokens)
      redis.call('EXPIRE', k[6], 90000)
    end
  end
  return { verdict, math.floor(math.min(rem[1], rem[3])), math.floor(math.min(rem[2], rem[4])), wait, oldest }
end
`;

/**
 * `give_back(k, id, tokens, rpm)`: k = the eight keys of `take_limits`, the day key '' when the test quota is
 * not given back. Removes the call's tokens (when tokens > 0, also from the test quota's day counter), its
 * requests (when rpm), and always frees its concurrency slot.
 */
export const GIVE_BACK_LUA = `
local function give_back(k, id, tokens, rpm)
  if tokens > 0 then
    for _, p in ipairs({ { k[2], k[7] }, { k[4], k[8] } }) do
      if redis.call('ZREM', p[1], id .. ':' .. tokens) == 1 and redis.call('EXISTS', p[2]) == 1 then
        redis.call('DECRBY', p[2], tokens)
      end
    end
    if k[6] ~= '' and redis.call('EXISTS', k[6]) == 1 then
      local v = tonumber(redis.call('GET', k[6]))
      redis.call('DECRBY', k[6], math.min(v, tokens))
    end
  end
  if rpm then
    redis.call('ZREM', k[1], id)
    redis.call('ZREM', k[3], id)
  end
  redis.call('ZREM', k[5], id)
end
`;

/** KEYS: the four logs, then the two tpm sums. */
const PEEK = `${LOGS}
local now = tonumber(ARGV[1])
local win = tonumber(ARGV[2])
local k = { KEYS[1], KEYS[2], KEYS[3], KEYS[4], '', '', KEYS[5], KEYS[6] }
local out = {}
local oldest = win
for i = 1, 4 do
  trim(k[i], sum_of(k, i), now, win)
  out[i] = used_of(k[i], sum_of(k, i), win)
  if i <= 2 then
    local o = oldest_wait(k[i], now, win)
    if o and o < oldest then oldest = o end
  end
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

/** Used amounts (key rpm, key tpm, account rpm, account tpm) and the reset in ms, without taking anything. */
export async function peek(
  redis: Redis,
  input: LimitSubject,
  now: number,
): Promise<{ used: [number, number, number, number]; resetMs: number }> {
  const keys = limitKeys(input);
  const out = (await redis.eval(
    PEEK,
    [...keys.slice(0, 4), ...keys.slice(6, 8)],
    [now, WINDOW_MS],
  )) as number[];
  return { used: [out[0]!, out[1]!, out[2]!, out[3]!], resetMs: out[4]! };
}

/**
 * `take_request`: KEYS = the key's and the account's rpm logs (`limitKeys` 1 and 3); ARGV = now, win, key rpm,
 * account rpm, id. Takes one request from both logs or from neither (a call that is not a decide but counts
 * against the key's requests per minute, such as creating an evaluation); returns {taken 0/1, rpm left, wait
 * ms, reset ms}.
 */
const TAKE_REQUEST = `${LOGS}
local now, win = tonumber(ARGV[1]), tonumber(ARGV[2])
local q = { tonumber(ARGV[3]), tonumber(ARGV[4]) }
local rem = {}
local wait = 0
for i = 1, 2 do
  trim(KEYS[i], nil, now, win)
  local used, w = usage(KEYS[i], nil, now, win, q[i], 1)
  rem[i] = q[i] - used
  if w ~= 0 then
    if w < 0 then w = win end
    if w > wait then wait = w end
  end
end
local taken = 0
if wait == 0 then
  taken = 1
  for i = 1, 2 do
    redis.call('ZADD', KEYS[i], now, ARGV[5])
    redis.call('PEXPIRE', KEYS[i], win + 1000)
    rem[i] = rem[i] - 1
  end
end
return { taken, math.max(0, math.min(rem[1], rem[2])), wait, oldest_wait(KEYS[1], now, win) or win }
`;

/** What `takeRequest` did: taken or not, rpm left, the wait of a refused one and the window's reset (ms). */
export interface RequestTaken {
  taken: boolean;
  remaining: number;
  waitMs: number;
  resetMs: number;
}

/** Takes one request from the key's and the account's rpm windows (all or nothing). */
export async function takeRequest(
  redis: Redis,
  subject: LimitSubject,
  rpm: { key: number; account: number },
  id: string,
  now: number,
): Promise<RequestTaken> {
  const keys = limitKeys(subject);
  const out = (await redis.eval(
    TAKE_REQUEST,
    [keys[0]!, keys[2]!],
    [now, WINDOW_MS, rpm.key, rpm.account, id],
  )) as number[];
  return { taken: out[0] === 1, remaining: out[1]!, waitMs: out[2]!, resetMs: out[3]! };
}
