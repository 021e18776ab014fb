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
  /** A GPU original's numerics class (metadata, not content): its replays are computed on that class only. */
  numerics_class?: string;
  usage: Usage;
  /** Question id → the account's calibration that answered it (issue 44): a replay applies the same maps. */
  calibrations?: Record<string, string>;
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
  /**
   * Request ids of earlier owners whose records were taken over and who may hold a debit or a kept completion:
   * the ledger settles them (replay or refund, once) before this record's owner may charge.
   */
  lapsed?: string[];
}

/**
 * `idem_check(key, now, fingerprint, lease)` → 'running' | 'reused' | 'replay', record | 'new', nil, owed.
 * A `running` record whose lease lapsed, or a `failed` one, is taken over. `owed` (a JSON array, '' when
 * empty) names the earlier owners still to be settled with the ledger: the lapsed owner, and the owners its
 * record still carried (a takeover that could not reach the ledger passes them on), so whoever next reaches
 * the ledger settles them.
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
  local owed = {}
  if type(rec.lapsed) == 'table' then
    for _, o in ipairs(rec.lapsed) do owed[#owed + 1] = o end
  end
  if rec.status == 'running' then owed[#owed + 1] = rec.owner end
  if #owed == 0 then return 'new', nil, '' end
  return 'new', nil, cjson.encode(owed)
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
