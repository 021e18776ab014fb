import { requestFingerprint, sha256Hex } from "../../schema/canonical-json";
import type { JsonValue } from "../../schema/json";
import { ApiError } from "../errors";
import type {
  BeginOutcome,
  IdempotencyRecord,
  IdempotencyStore,
  OriginalResult,
} from "../stores/idempotency";
import { StoreUnavailableError } from "../stores/redis";

/** The open record of a keyed call; every exit path calls exactly one of its methods. */
export interface IdempotencyHandle {
  /** 200: the record becomes `completed` with the original's identifiers and charge. */
  complete(result: OriginalResult): Promise<void>;
  /** 5xx: the record becomes `failed`; a retry with the key runs normally. */
  fail(): Promise<void>;
  /** 402 / 429: no record is kept. */
  abandon(): Promise<void>;
}

export type IdempotencyStep =
  | { kind: "none" }
  | { kind: "new"; handle: IdempotencyHandle }
  | { kind: "replay"; original: OriginalResult };

/**
 * Step 7 of the order of checks. Without a key: nothing. With one: 409 `idempotency_in_progress`
 * (retry-after 1), 409 `idempotency_key_reused`, a replay of a completed call, or a new `running` record.
 * Redis unreachable → 503 `billing_unavailable`.
 */
export async function idempotencyStep(
  store: IdempotencyStore,
  keyId: string,
  idempotencyKey: string | null | undefined,
  body: JsonValue,
  requestId: string,
  now: number = Date.now(),
): Promise<IdempotencyStep> {
  if (!idempotencyKey) return { kind: "none" };
  const keyHash = await sha256Hex(idempotencyKey);
  const record: IdempotencyRecord = {
    key_id: keyId,
    key_hash: keyHash,
    fingerprint: await requestFingerprint(body),
    status: "running",
    owner: requestId,
    created_at: now,
    updated_at: now,
  };
  let begun: BeginOutcome;
  try {
    begun = await store.begin(record);
  } catch (err) {
    if (err instanceof StoreUnavailableError) throw new ApiError("billing_unavailable");
    throw err;
  }
  if (begun.kind === "running") throw new ApiError("idempotency_in_progress", { param: "idempotency-key" });
  if (begun.kind === "reused") throw new ApiError("idempotency_key_reused", { param: "idempotency-key" });
  if (begun.kind === "replay") {
    if (!begun.record.result) throw new ApiError("internal_error");
    return { kind: "replay", original: begun.record.result };
  }
  const update = (next: IdempotencyRecord | null) =>
    store.update(keyId, keyHash, requestId, next).catch((err) => {
      // The record then expires or its running lease lapses; the caller's answer stands.
      console.error("idempotency update failed", err instanceof Error ? err.message : err);
      return false;
    });
  return {
    kind: "new",
    handle: {
      async complete(result) {
        await update({ ...record, status: "completed", updated_at: Date.now(), result });
      },
      async fail() {
        await update({ ...record, status: "failed", updated_at: Date.now() });
      },
      async abandon() {
        await update(null);
      },
    },
  };
}
