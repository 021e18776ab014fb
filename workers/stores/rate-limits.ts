import type { Redis } from "@upstash/redis";
import { type LimitSubject, limitKeys, WINDOW_MS } from "./rate-limit-keys";
import { GIVE_BACK_LUA, LIMIT_LOGS_LUA } from "./rate-limit-lua";

/** KEYS: the four logs, then the two tpm sums. */
const PEEK = `${LIMIT_LOGS_LUA}
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
const TAKE_REQUEST = `${LIMIT_LOGS_LUA}
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

/**
 * `take_tokens`: KEYS = the key's and the account's tpm logs and their running sums (`limitKeys` 2, 4, 7, 8); ARGV =
 * now, win, tokens, key tpm, account tpm, id. Takes `tokens` from both windows or from neither (a batch line,
 * which takes no request slot); returns {taken 0/1, wait ms}, the wait -1 when the tokens exceed a whole limit.
 */
const TAKE_TOKENS = `${LIMIT_LOGS_LUA}
local now, win, tokens = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local q = { tonumber(ARGV[4]), tonumber(ARGV[5]) }
local logs = { KEYS[1], KEYS[2] }
local sums = { KEYS[3], KEYS[4] }
local wait = 0
for i = 1, 2 do
  trim(logs[i], sums[i], now, win)
  local _, w = usage(logs[i], sums[i], now, win, q[i], tokens)
  if w < 0 then return { 0, -1 } end
  if w > wait then wait = w end
end
if wait > 0 then return { 0, wait } end
for i = 1, 2 do
  redis.call('ZADD', logs[i], now, ARGV[6] .. ':' .. tokens)
  redis.call('PEXPIRE', logs[i], win + 1000)
  redis.call('INCRBY', sums[i], tokens)
  redis.call('PEXPIRE', sums[i], win + 1000)
end
return { 1, 0 }
`;

/** Takes `tokens` from the key's and the account's tpm windows (all or nothing): taken, the wait, or never. */
export async function takeTokens(
  redis: Redis,
  subject: LimitSubject,
  tpm: { key: number; account: number },
  tokens: number,
  id: string,
  now: number,
): Promise<{ taken: true } | { taken: false; waitMs: number | null }> {
  const k = limitKeys(subject);
  const out = (await redis.eval(
    TAKE_TOKENS,
    [k[1]!, k[3]!, k[6]!, k[7]!],
    [now, WINDOW_MS, tokens, tpm.key, tpm.account, id],
  )) as number[];
  if (out[0] === 1) return { taken: true };
  return { taken: false, waitMs: out[1]! < 0 ? null : out[1]! };
}

const GIVE_BACK_TOKENS = `${GIVE_BACK_LUA}
give_back(KEYS, ARGV[1], tonumber(ARGV[2]), false)
return 1
`;

/** Gives back tokens `takeTokens` took under `id` (a line that did not finish charged). */
export async function giveBackTokens(
  redis: Redis,
  subject: LimitSubject,
  tokens: number,
  id: string,
): Promise<void> {
  const k = limitKeys(subject);
  k[5] = "";
  await redis.eval(GIVE_BACK_TOKENS, k, [id, tokens]);
}
