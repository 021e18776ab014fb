import type { Usage } from "../../schema/decide";

/** Idempotency records are kept 24 hours (spec: Limits → Other limits). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A `running` record older than this belongs to a call that died without finishing; a retry may take it. */
export const RUNNING_LEASE_MS = 5 * 60 * 1000;

/** What a completed call leaves behind: identifiers, model, path, counts and charge — never content. */
export interface OriginalResult {
  id: string;
  created: number;
  model: string;
  served_by: "gpu" | "fallback";
  usage: Usage;
}

export interface IdempotencyRecord {
  key_id: string;
  /** SHA-256 of the idempotency key. */
  key_hash: string;
  /** SHA-256 of the canonical request. */
  fingerprint: string;
  status: "running" | "completed" | "failed";
  /** Request id of the call that owns the record. */
  owner: string;
  created_at: number;
  updated_at: number;
  result?: OriginalResult;
}

/**
 * `idem_check(key, now, fingerprint, lease)` → 'running' | 'reused' | 'replay', record | 'new', nil, lapsed
 * owner ('' when none). A `running` record whose lease lapsed is taken over; its owner is returned so the
 * caller can settle what that call left behind.
 */
export const IDEM_CHECK_LUA = `
local function idem_check(key, now, fp, lease)
  local v = redis.call('GET', key)
  if not v then return 'new', nil, '' end
  local rec = cjson.decode(v)
  if rec.status == 'running' and now - tonumber(rec.updated_at) < lease then return 'running', nil, '' end
  if rec.status == 'completed' then
    if rec.fingerprint == fp then return 'replay', v, '' end
    return 'reused', nil, ''
  end
  if rec.status == 'running' then return 'new', nil, rec.owner end
  return 'new', nil, ''
end
`;

/** `idem_update(key, owner, next)`: replaces the record (deletes it when next is '') if `owner` still owns it. */
export const IDEM_UPDATE_LUA = `
local function idem_update(key, owner, nxt)
  local v = redis.call('GET', key)
  if not v then return 0 end
  local rec = cjson.decode(v)
  if rec.owner ~= owner then return 0 end
  if nxt == '' then redis.call('DEL', key) else redis.call('SET', key, nxt, 'KEEPTTL') end
  return 1
end
`;

/** The Redis key of an idempotency record (scoped to the API key). */
export function recordKey(keyId: string, keyHash: string): string {
  return `idem:${keyId}:${keyHash}`;
}
