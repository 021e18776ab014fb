import type { RedisAccess } from "./redis";

/** A try limit with backoff: `free` tries, then each further try waits twice as long as the one before. */
export interface BackoffLimit {
  prefix: string;
  /** Tries without a wait (the last of them starts the first wait). */
  free: number;
  /** The first wait, then doubled each try, at most `capMs`. */
  baseMs: number;
  capMs: number;
  /** The count is forgotten this long after the last allowed try. */
  windowSeconds: number;
}

// KEYS[1] the identifier's hash {n, next}; ARGV now (ms), free, base (ms), cap (ms), window (s).
// Answers 0 when the try is taken, else the milliseconds left to wait (nothing counted).
const TAKE = `
local now = tonumber(ARGV[1])
local free = tonumber(ARGV[2])
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local nextAt = tonumber(redis.call('HGET', KEYS[1], 'next') or '0')
if now < nextAt then return math.ceil(nextAt - now) end
n = n + 1
local at = 0
if n >= free then at = now + math.min(tonumber(ARGV[3]) * 2 ^ (n - free), tonumber(ARGV[4])) end
redis.call('HSET', KEYS[1], 'n', n, 'next', at)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[5]))
return 0
`;

// KEYS[1] the identifier's hash: one taken try given back (a try that succeeded).
const GIVE_BACK = `
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if n > 0 then redis.call('HINCRBY', KEYS[1], 'n', -1) end
return 0
`;

/**
 * Takes one try for `identifier` atomically: 0 when taken, else the milliseconds until the next try is
 * allowed (a refused try counts nothing). Redis down is a `StoreUnavailableError`.
 */
export function takeBackoffTry(
  redis: RedisAccess,
  w: BackoffLimit,
  identifier: string,
  now: number = Date.now(),
): Promise<number> {
  return redis.run(async (r) =>
    Number(
      await r.eval(TAKE, [`${w.prefix}:${identifier}`], [now, w.free, w.baseMs, w.capMs, w.windowSeconds]),
    ),
  );
}

/** Gives one taken try back (the try succeeded, so it does not count towards the wait). */
export async function giveBackBackoffTry(
  redis: RedisAccess,
  w: BackoffLimit,
  identifier: string,
): Promise<void> {
  await redis.run((r) => r.eval(GIVE_BACK, [`${w.prefix}:${identifier}`], []));
}
