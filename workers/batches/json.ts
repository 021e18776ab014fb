import type { BatchRow } from "../stores/batch-rows";

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** The Batch object (schema/batches.ts). */
export function batchJson(b: BatchRow) {
  const paused = b.status === "paused";
  return {
    id: b.id,
    object: "batch" as const,
    status: b.status,
    paused_reason: paused ? b.pausedReason : null,
    // A balance pause resumes on a top-up: no time is known for it.
    resumes_at: paused && b.pausedReason === "test_daily_quota" ? seconds(b.resumesAt) : null,
    mode: b.mode,
    model: b.model,
    counts: { total: b.total, done: b.done, failed: b.failed },
    usage: { input_tokens: b.inputTokens, charge_micro_cents: b.chargeMicroCents },
    created: seconds(b.createdAt)!,
    started: seconds(b.startedAt),
    finished: seconds(b.finishedAt),
    expires_at: seconds(b.expiresAt)!,
    results_expire_at: seconds(b.resultsExpireAt),
    failure: b.failureCode ? { code: b.failureCode, message: b.failureMessage ?? "" } : null,
  };
}
