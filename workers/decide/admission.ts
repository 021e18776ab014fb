import { requestFingerprint } from "../../schema/canonical-json";
import { sha256Hex } from "../../schema/hex";
import type { JsonValue } from "../../schema/json";
import { dayOf, secondsToUtcMidnight } from "../../schema/periods";
import { ApiError } from "../errors";
import {
  CONCURRENCY,
  limitsFor,
  type MoneySubject,
  type RateLimitState,
  SLOT_LEASE_MS,
  TEST_DAILY_QUOTA,
  waitSeconds,
} from "../limits/key-limits";
import { logEvent } from "../observability/log";
import type { AdmissionStore, LeaveInput } from "../stores/admission";
import type { IdempotencyRecord, OriginalResult } from "../stores/idempotency";
import type { AdmitInput } from "../stores/rate-limit-keys";
import { StoreUnavailableError } from "../stores/redis";

/** How an admitted call ended, for its one write after dispatch. */
export type Exit =
  | { kind: "completed"; result: OriginalResult }
  /**
   * 5xx: the record becomes `failed` (a retry runs normally); tokens and test quota go back. `owed` = lapsed
   * owners this call could not settle: the record keeps them for the retry that next reaches the ledger.
   */
  | { kind: "failed"; owed?: string[] }
  /** 402: no record is kept; the tokens go back (they were never billed). */
  | { kind: "refused" }
  /** A lapsed record's kept completion is replayed instead: the record completes, the admission is undone. */
  | { kind: "replayed"; result: OriginalResult };

/** An admitted call: the real counts, a lapsed owner to settle, and the one write that ends it. */
export interface Ticket {
  /** Null when the limiter was unreachable and an unkeyed live call runs unlimited. */
  state: RateLimitState | null;
  /** Earlier owners of the record this call took over, to be settled with the ledger before it charges. */
  lapsedOwners: string[];
  /** Writes the record and gives back what the exit returns, in one round trip; throws when Redis is down. */
  leave(exit: Exit): Promise<void>;
  /** While dispatch runs: the slot's and the record's leases start again (at `now`); throws when Redis is down. */
  renew(now?: number): Promise<void>;
}

export type Entry = { kind: "replay"; original: OriginalResult } | { kind: "admitted"; ticket: Ticket };

/** The caller and its call, as steps 7 and 8 see them. */
export interface EntryInput {
  subject: MoneySubject;
  requestId: string;
  tokens: number;
  idempotencyKey: string | undefined;
  /** Parsed body (for the idempotency fingerprint). */
  body: JsonValue;
  now?: number;
}

/**
 * Steps 7 and 8 of POST /v1/decide in one Redis round trip: 409 `idempotency_in_progress` /
 * `idempotency_key_reused`, a replay of a completed call, or the limits (429 naming the exhausted limit, with
 * the real wait; a refused call keeps no record). Redis unreachable: 503 `billing_unavailable` for keyed and
 * test calls; an unkeyed live call runs unlimited (the ledger still bills it exactly).
 */
export async function enterCall(
  store: AdmissionStore,
  input: EntryInput,
  onState: (s: RateLimitState) => void,
): Promise<Entry> {
  const { subject, requestId, tokens } = input;
  const now = input.now ?? Date.now();
  const limits = limitsFor(subject);
  const admit: AdmitInput = {
    keyId: subject.keyId,
    accountId: subject.accountId,
    mode: subject.mode,
    key: limits.key,
    account: limits.account,
    concurrency: CONCURRENCY[subject.mode],
    dailyQuota: subject.mode === "test" ? TEST_DAILY_QUOTA : 0,
    day: dayOf(now),
    tokens,
    requestId,
    leaseMs: SLOT_LEASE_MS,
    now,
  };
  const record = input.idempotencyKey
    ? await newRecord(subject.keyId, input.idempotencyKey, input.body, requestId, now)
    : null;
  let out: Awaited<ReturnType<AdmissionStore["enter"]>>;
  try {
    out = await store.enter(admit, record);
  } catch (err) {
    if (!(err instanceof StoreUnavailableError)) throw err;
    logEvent("error", "rate_limiter_unreachable", { request_id: requestId });
    if (record || subject.mode === "test") throw new ApiError("billing_unavailable");
    const unlimited = async () => {};
    return {
      kind: "admitted",
      ticket: { state: null, lapsedOwners: [], leave: unlimited, renew: unlimited },
    };
  }
  if (out.kind === "running") throw new ApiError("idempotency_in_progress", { param: "idempotency-key" });
  if (out.kind === "reused") throw new ApiError("idempotency_key_reused", { param: "idempotency-key" });
  if (out.kind === "replay") {
    if (!out.record.result) throw new ApiError("internal_error");
    return { kind: "replay", original: out.record.result };
  }
  const state: RateLimitState = {
    policy: limits.key,
    remaining: out.remaining,
    resetSeconds: waitSeconds(out.resetMs),
  };
  onState(state);
  if (out.kind === "limited") {
    const v = out.verdict;
    if (v === "ok") throw new ApiError("internal_error");
    const retryAfter =
      v === "test_daily_quota"
        ? secondsToUtcMidnight(now)
        : v === "concurrency"
          ? undefined
          : waitSeconds(out.waitMs);
    throw new ApiError(v, { retryAfter });
  }
  let left = false;
  return {
    kind: "admitted",
    ticket: {
      state,
      lapsedOwners: out.lapsedOwners,
      renew: (at) => store.renew(admit, record, at),
      async leave(exit) {
        if (left) return;
        left = true;
        await store.leave(admit, record, leaveInput(exit, record, tokens, subject.mode === "test"));
        if (exit.kind === "failed" || exit.kind === "refused")
          state.remaining = {
            rpm: state.remaining.rpm,
            tpm: Math.min(state.remaining.tpm + tokens, limits.key.tpm),
          };
      },
    },
  };
}

async function newRecord(
  keyId: string,
  idempotencyKey: string,
  body: JsonValue,
  owner: string,
  now: number,
): Promise<IdempotencyRecord> {
  return {
    key_id: keyId,
    key_hash: await sha256Hex(idempotencyKey),
    fingerprint: await requestFingerprint(body),
    status: "running",
    owner,
    created_at: now,
    updated_at: now,
  };
}

function leaveInput(exit: Exit, record: IdempotencyRecord | null, tokens: number, test: boolean): LeaveInput {
  const at = Date.now();
  const refund = exit.kind === "completed" ? 0 : tokens;
  const next: IdempotencyRecord | null | undefined = !record
    ? undefined
    : exit.kind === "completed" || exit.kind === "replayed"
      ? { ...record, status: "completed", updated_at: at, result: exit.result }
      : exit.kind === "failed"
        ? { ...record, status: "failed", updated_at: at, ...(exit.owed?.length ? { lapsed: exit.owed } : {}) }
        : null;
  return {
    record: next === undefined ? undefined : { next },
    refundTokens: refund,
    testQuota: test,
    undoRequest: exit.kind === "replayed",
  };
}
