import type { Redis } from "@upstash/redis";
import { hex } from "../../schema/hex";
import {
  IDEM_CHECK_LUA,
  IDEM_UPDATE_LUA,
  IDEMPOTENCY_TTL_MS,
  type IdempotencyRecord,
  RUNNING_LEASE_MS,
  recordKey,
} from "./idempotency";
import {
  type AdmitInput,
  type LimitsOutcome,
  limitKeys,
  limitsOutcome,
  takeLimitsArgs,
} from "./rate-limit-keys";
import { GIVE_BACK_LUA, TAKE_LIMITS } from "./rate-limit-lua";
import type { RedisAccess } from "./redis";

/**
 * Steps 7 and 8 of a decide call in ONE round trip: the idempotency record (409 / replay / new, a lapsed
 * `running` record taken over), then every limit; a refused call keeps no record (spec: no record for a 429).
 * A taken-over record's unsettled owners go into the new record in the same step, so they are never lost
 * between the takeover and the ledger. KEYS: the eight limit keys, then the record key ('' without one).
 */
const ENTER = `${TAKE_LIMITS}${IDEM_CHECK_LUA}
local idemKey = KEYS[9]
local a = {}
for i = 1, 11 do a[i] = tonumber(ARGV[i]) or ARGV[i] end
local lapsed = ''
if idemKey ~= '' then
  local kind, rec, owed = idem_check(idemKey, a[1], ARGV[13], tonumber(ARGV[14]))
  if kind ~= 'new' then return { kind, rec or '' } end
  lapsed = owed
end
local r = take_limits({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7], KEYS[8] }, a)
if r[1] ~= 0 then return { 'limited', '', r[1], r[2], r[3], r[4], r[5] } end
if idemKey ~= '' then
  local rec = ARGV[12]
  if lapsed ~= '' then rec = string.sub(rec, 1, -2) .. ',"lapsed":' .. lapsed .. '}' end
  redis.call('SET', idemKey, rec, 'PX', tonumber(ARGV[15]))
end
return { 'admitted', lapsed, r[1], r[2], r[3], r[4], r[5] }
`;

/**
 * Everything a decide call gives back or writes after dispatch, in ONE round trip: the record (completed,
 * failed or removed, if still owned), the tokens of a refunded call, its requests (an undone admission) and
 * its concurrency slot. KEYS: the eight limit keys, then the record key or ''.
 */
const LEAVE = `${GIVE_BACK_LUA}${IDEM_UPDATE_LUA}
if KEYS[9] ~= '' and ARGV[2] == '1' then idem_update(KEYS[9], ARGV[1], ARGV[3]) end
local day = KEYS[6]
if ARGV[6] ~= '1' then day = '' end
give_back({ KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], day, KEYS[7], KEYS[8] }, ARGV[1], tonumber(ARGV[4]), ARGV[5] == '1')
return 1
`;

/**
 * A call still at work keeps what it holds, in ONE round trip: its concurrency slot's lease (only if the slot
 * is still there) and its `running` idempotency record's `updated_at` (only if it still owns it), so neither
 * lapses under a long call. KEYS: the concurrency set, the record key or ''. ARGV: request id, now, slot lease.
 */
const RENEW = `
local id, now, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
if redis.call('ZSCORE', KEYS[1], id) then
  redis.call('ZADD', KEYS[1], 'XX', now + lease, id)
  redis.call('PEXPIRE', KEYS[1], lease + 1000)
end
if KEYS[2] ~= '' then
  local v = redis.call('GET', KEYS[2])
  if v then
    local rec = cjson.decode(v)
    if rec.owner == id and rec.status == 'running' then
      rec.updated_at = now
      redis.call('SET', KEYS[2], cjson.encode(rec), 'KEEPTTL')
    end
  end
end
return 1
`;

export type EnterOutcome =
  | { kind: "running" }
  | { kind: "reused" }
  | { kind: "replay"; record: IdempotencyRecord }
  | ({ kind: "limited" } & LimitsOutcome)
  | ({ kind: "admitted"; lapsedOwners: string[] } & LimitsOutcome);

/** What leaving writes: the record's next state (when there is one), and what goes back to the limits. */
export interface LeaveInput {
  /** `{ next }` replaces the owned record (`null` removes it); omitted leaves it alone. */
  record?: { next: IdempotencyRecord | null };
  /** Tokens to remove from the tpm logs (and the test quota when `testQuota`); 0 for none. */
  refundTokens: number;
  testQuota: boolean;
  /** Also remove the call from the rpm logs (an admission undone, e.g. a replay found after a takeover). */
  undoRequest: boolean;
}

/** Each script's SHA-1 hex, once computed: a string, never a promise another request started (workerd). */
const scriptShas = new Map<string, string>();

/**
 * Runs one of the store's scripts by its SHA-1 (EVALSHA), sending the text only when Redis lacks it (NOSCRIPT:
 * a restarted Redis, a new isolate's first call). The decide path's two scripts are 3–5 KB each.
 */
async function runScript(
  redis: Redis,
  text: string,
  keys: string[],
  args: (string | number)[],
): Promise<unknown> {
  let sha = scriptShas.get(text);
  if (sha === undefined) {
    sha = hex(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text)));
    scriptShas.set(text, sha);
  }
  try {
    return await redis.evalsha(sha, keys, args);
  } catch (err) {
    if (err instanceof Error && err.message.toLowerCase().includes("noscript"))
      return redis.eval(text, keys, args);
    throw err;
  }
}

/** The combined idempotency-and-limits store of decide calls. */
export class AdmissionStore {
  constructor(private readonly redis: RedisAccess) {}

  /** One round trip: record check, then limits; the record is written only when the call is admitted. */
  enter(input: AdmitInput, record: IdempotencyRecord | null): Promise<EnterOutcome> {
    return this.redis.run((r) => enter(r, input, record));
  }

  /** One round trip while dispatch runs: the slot's lease and the record's `running` lease start again at `now`. */
  renew(subject: AdmitInput, record: IdempotencyRecord | null, now = Date.now()): Promise<void> {
    const concurrency = limitKeys(subject)[4] as string; // the account's in-flight set
    return this.redis.run(async (r) => {
      await runScript(
        r,
        RENEW,
        [concurrency, record ? recordKey(record.key_id, record.key_hash) : ""],
        [subject.requestId, now, subject.leaseMs],
      );
    });
  }

  /** One round trip after dispatch. */
  leave(subject: AdmitInput, record: IdempotencyRecord | null, input: LeaveInput): Promise<void> {
    return this.redis.run((r) => leave(r, subject, record, input));
  }
}

const keysOf = (input: AdmitInput, record: IdempotencyRecord | null) => [
  ...limitKeys(input),
  record ? recordKey(record.key_id, record.key_hash) : "",
];

async function enter(
  redis: Redis,
  input: AdmitInput,
  record: IdempotencyRecord | null,
): Promise<EnterOutcome> {
  const res = (await runScript(redis, ENTER, keysOf(input, record), [
    ...takeLimitsArgs(input),
    record ? JSON.stringify(record) : "",
    record?.fingerprint ?? "",
    RUNNING_LEASE_MS,
    IDEMPOTENCY_TTL_MS,
  ])) as [string, unknown, ...number[]];
  const [kind, payload, ...limits] = res;
  if (kind === "running") return { kind };
  if (kind === "reused") return { kind };
  if (kind === "replay")
    return {
      kind,
      record: (typeof payload === "string" ? JSON.parse(payload) : payload) as IdempotencyRecord,
    };
  const outcome = limitsOutcome(limits);
  if (kind === "limited") return { kind, ...outcome };
  return {
    kind: "admitted",
    lapsedOwners: owedOwners(payload),
    ...outcome,
  };
}

async function leave(
  redis: Redis,
  subject: AdmitInput,
  record: IdempotencyRecord | null,
  input: LeaveInput,
): Promise<void> {
  await runScript(redis, LEAVE, keysOf(subject, record), [
    subject.requestId,
    input.record ? "1" : "0",
    input.record?.next ? JSON.stringify(input.record.next) : "",
    input.refundTokens,
    input.undoRequest ? "1" : "0",
    input.testQuota ? "1" : "0",
  ]);
}

/** The owners a takeover must settle, as the script returned them (a JSON array, or '' for none). */
function owedOwners(payload: unknown): string[] {
  const list = typeof payload === "string" ? (payload === "" ? [] : JSON.parse(payload)) : payload;
  return Array.isArray(list) ? list.filter((o): o is string => typeof o === "string") : [];
}
