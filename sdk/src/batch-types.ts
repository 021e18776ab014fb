/**
 * Batches (POST /v1/batches and its reads, issue 42): up to 100,000 decide requests uploaded as JSONL, run in
 * the background within 24 hours, their answers read back as JSONL in input order; webhook events when a
 * batch ends. Written out here so the published package needs nothing else; the unit tier checks them equal
 * to the API's wire schemas (`schema/batches.ts`).
 */
import type { Calibration } from "./calibration-types.js";
import type { DecideRequest, Decision, Questions } from "./decide-types.js";
import type { QuestionDrift } from "./question-types.js";

/** `queued` → `running` (→ `paused`) → one of the finished statuses. */
export type BatchStatus = "queued" | "running" | "paused" | "completed" | "cancelled" | "expired" | "failed";

/** A batch in one of these statuses no longer runs: its results are final. */
export const FINISHED_BATCH_STATUSES: readonly BatchStatus[] = [
  "completed",
  "cancelled",
  "expired",
  "failed",
];

/** One line of an upload: your id for it (1–64 characters, unique in the batch) and a decide's body. */
export interface BatchLine<Q extends Questions = Questions> {
  custom_id: string;
  body: DecideRequest<Q>;
}

export interface Batch {
  /** `batch_` + ULID. */
  id: string;
  object: "batch";
  status: BatchStatus;
  /** Why a `paused` batch waits; null otherwise. */
  paused_reason: "insufficient_balance" | "test_daily_quota" | null;
  /** Paused for the test daily quota: the next 00:00 UTC (Unix seconds); null when not known. */
  resumes_at: number | null;
  /** The creating key's mode: live lines are charged. */
  mode: "live" | "test";
  /** The model every line names (default `svc-1`); null when lines name different ones. */
  model: string | null;
  counts: {
    total: number;
    /** Lines answered (status 200). */
    done: number;
    /** Lines finished with an error. */
    failed: number;
  };
  usage: {
    input_tokens: number;
    /** The sum of the answered lines' charges. */
    charge_micro_cents: number;
  };
  created: number;
  started: number | null;
  finished: number | null;
  /** created + 24 h: lines not run by then are never run. */
  expires_at: number;
  /** finished + 30 days: lines and results are deleted then. */
  results_expire_at: number | null;
  failure: { code: string; message: string } | null;
}

/** GET /v1/batches: newest first. */
export interface BatchList {
  object: "list";
  data: Batch[];
  has_more: boolean;
}

/** DELETE /v1/batches/{id}. */
export interface DeletedBatch {
  id: string;
  object: "batch";
  deleted: true;
}

/** A line that was answered: the Decision, as POST /v1/decide would have answered it. */
export interface BatchResultSuccess {
  custom_id: string;
  status: 200;
  body: Decision;
}

/** A line that ended in an error: its status and the error envelope's fields. */
export interface BatchResultFailure {
  custom_id: string;
  status: number;
  error: { type: string; code: string; message: string; [field: string]: unknown };
}

/** One line of GET /v1/batches/{id}/results, in input order; narrow with `"body" in line` (or `"error" in line`). */
export type BatchResultLine = BatchResultSuccess | BatchResultFailure;

/** Query of `batches.list`. */
export interface BatchListQuery {
  /** 1–100 (the API's default when absent). */
  limit?: number;
  /** A batch id: the page after it. */
  starting_after?: string;
}

/**
 * What `batches.create` uploads: the lines (an array, or any iterable or async iterable of them), or JSONL
 * that is already written (a string, a `Blob`/`File`, e.g. Node's `fs.openAsBlob(path)`, or a byte stream;
 * a Node stream such as `fs.createReadStream(path)`, an async iterable of Buffers, is sent as it is too).
 */
export type BatchInput =
  | readonly BatchLine[]
  | Iterable<BatchLine>
  | AsyncIterable<BatchLine>
  | string
  | Blob
  | ReadableStream<Uint8Array>;

/** Batch events a webhook endpoint is called with. */
export type BatchEventType = "batch.completed" | "batch.failed" | "batch.expired" | "batch.cancelled";

/** Every event a webhook endpoint is called with (its `events`). */
export type WebhookEventType =
  | BatchEventType
  | "question.drifted"
  | "calibration.ready"
  | "calibration.failed";

/** A batch ended (`data.object`: the batch as GET /v1/batches/{id} then answers). */
export interface BatchEvent {
  /** `evt_` + ULID. */
  id: string;
  object: "event";
  type: BatchEventType;
  created: number;
  data: { object: Batch };
}

/** A question's drift crossed its threshold (the drift report, with the mode of the keys that asked it). */
export interface QuestionDriftedEvent {
  id: string;
  object: "event";
  type: "question.drifted";
  created: number;
  data: { object: DriftedQuestion };
}

export interface DriftedQuestion extends QuestionDrift {
  mode: "live" | "test";
}

/** A calibration fitted in the background ended: `calibration.ready` (active) or `calibration.failed` (`error`). */
export interface CalibrationEvent {
  id: string;
  object: "event";
  type: "calibration.ready" | "calibration.failed";
  created: number;
  data: { object: Calibration };
}

/** The body of a webhook call, signed in its `svc-signature` header; `type` tells which. */
export type WebhookEvent = BatchEvent | QuestionDriftedEvent | CalibrationEvent;
