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
export const LIMIT_LOGS_LUA = `
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
export const TAKE_LIMITS = `${LIMIT_LOGS_LUA}
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
