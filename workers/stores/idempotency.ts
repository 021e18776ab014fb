import type { Redis } from "@upstash/redis";
import type { Usage } from "../../schema/decide";
import type { RedisAccess } from "./redis";

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

const BEGIN = `
local v = redis.call('GET', KEYS[1])
local now = tonumber(ARGV[2])
if v then
  local rec = cjson.decode(v)
  if rec.status == 'running' and now - tonumber(rec.updated_at) < tonumber(ARGV[4]) then return {'running', ''} end
  if rec.status == 'completed' then
    if rec.fingerprint == ARGV[3] then return {'replay', v} end
    return {'reused', ''}
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', tonumber(ARGV[5]))
return {'new', ''}
`;

const UPDATE_IF_OWNER = `
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local rec = cjson.decode(v)
if rec.owner ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`;

export type BeginOutcome =
  | { kind: "new" }
  | { kind: "running" }
  | { kind: "reused" }
  | { kind: "replay"; record: IdempotencyRecord };

export function recordKey(keyId: string, keyHash: string): string {
  return `idem:${keyId}:${keyHash}`;
}

/** Creates a `running` record, or reports the existing one's state (one atomic step). */
export async function beginRecord(redis: Redis, record: IdempotencyRecord): Promise<BeginOutcome> {
  const [kind, raw] = (await redis.eval(
    BEGIN,
    [recordKey(record.key_id, record.key_hash)],
    [JSON.stringify(record), record.created_at, record.fingerprint, RUNNING_LEASE_MS, IDEMPOTENCY_TTL_MS],
  )) as [string, unknown];
  if (kind === "replay") {
    const rec = (typeof raw === "string" ? JSON.parse(raw) : raw) as IdempotencyRecord;
    return { kind, record: rec };
  }
  return { kind: kind as "new" | "running" | "reused" };
}

/** Replaces the record (or deletes it when `next` is null) if `owner` still owns it. */
export async function updateRecord(
  redis: Redis,
  keyId: string,
  keyHash: string,
  owner: string,
  next: IdempotencyRecord | null,
): Promise<boolean> {
  const res = await redis.eval(
    UPDATE_IF_OWNER,
    [recordKey(keyId, keyHash)],
    [owner, next ? JSON.stringify(next) : ""],
  );
  return Number(res) === 1;
}

/** Idempotency records in Redis; transport failures surface as `StoreUnavailableError`. */
export class IdempotencyStore {
  constructor(private readonly redis: RedisAccess) {}

  begin(record: IdempotencyRecord): Promise<BeginOutcome> {
    return this.redis.run((r) => beginRecord(r, record));
  }

  update(keyId: string, keyHash: string, owner: string, next: IdempotencyRecord | null): Promise<boolean> {
    return this.redis.run((r) => updateRecord(r, keyId, keyHash, owner, next));
  }
}
