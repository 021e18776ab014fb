import type { BatchStatus } from "../../schema/batches";
import { msOrNull } from "./db";

/** Why a batch waits: its account's balance ran out, or a test key's daily quota did. */
export type PausedReason = "insufficient_balance" | "test_daily_quota";

/** A batch row (times in ms since epoch). */
export interface BatchRow {
  id: string;
  accountId: string;
  keyId: string;
  mode: "live" | "test";
  model: string | null;
  status: BatchStatus;
  pausedReason: PausedReason | null;
  resumesAt: number | null;
  total: number;
  done: number;
  failed: number;
  inputTokens: number;
  chargeMicroCents: number;
  chunks: number;
  chunkLines: number[];
  chunksWritten: number;
  bytes: number;
  idempotencyKey: string | null;
  bodySha256: string | null;
  failureCode: string | null;
  failureMessage: string | null;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  updatedAt: number;
  expiresAt: number;
  resultsExpireAt: number | null;
}

/** A `batches` row as the Worker reads it. */
export function toBatch(r: Record<string, unknown>): BatchRow {
  return {
    id: String(r.id),
    accountId: String(r.account_id),
    keyId: String(r.key_id),
    mode: r.mode as "live" | "test",
    model: (r.model as string | null) ?? null,
    status: r.status as BatchStatus,
    pausedReason: (r.paused_reason as PausedReason | null) ?? null,
    resumesAt: msOrNull(r.resumes_at),
    total: Number(r.total),
    done: Number(r.done),
    failed: Number(r.failed),
    inputTokens: Number(r.input_tokens),
    chargeMicroCents: Number(r.charge_micro_cents),
    chunks: Number(r.chunks),
    chunkLines: (r.chunk_lines as unknown[]).map(Number),
    chunksWritten: Number(r.chunks_written),
    bytes: Number(r.bytes),
    idempotencyKey: (r.idempotency_key as string | null) ?? null,
    bodySha256: (r.body_sha256 as string | null) ?? null,
    failureCode: (r.failure_code as string | null) ?? null,
    failureMessage: (r.failure_message as string | null) ?? null,
    createdAt: msOrNull(r.created_at)!,
    startedAt: msOrNull(r.started_at),
    finishedAt: msOrNull(r.finished_at),
    updatedAt: msOrNull(r.updated_at)!,
    expiresAt: msOrNull(r.expires_at)!,
    resultsExpireAt: msOrNull(r.results_expire_at),
  };
}

/** Results and lines are kept this long after a batch finishes. */
export const RESULTS_RETENTION_DAYS = 30;
/** SQL: the retention of a finished batch's results and lines. */
export const RESULTS_RETENTION = `interval '${RESULTS_RETENTION_DAYS} days'`;
/** SQL: the batch is queued, running or paused. */
export const ACTIVE_BATCH = "status IN ('queued', 'running', 'paused')";
/** SQL: the batch counts against the account's active cap: active, or its upload is still streaming (issue 50). */
export const COUNTED_BATCH = "status IN ('uploading', 'queued', 'running', 'paused')";
/** SQL: the batch finished (completed, cancelled, expired or failed). */
export const FINISHED_BATCH = "status IN ('completed', 'cancelled', 'expired', 'failed')";
/** SQL: the row is a batch the API shows (not an upload still streaming). */
export const SHOWN_BATCH = "status <> 'uploading'";
/** Batches whose objects still count against the account's storage (not past their results' retention). */
export const STORED_BATCH = "(results_expire_at IS NULL OR results_expire_at > now())";
