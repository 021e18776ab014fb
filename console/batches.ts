/** The console's view of batches (issue 42): the API's shapes (schema/batches.ts), and how the pages word them. */
import { ApiError, errorText } from "./api";
import { lineErrorText } from "./batch-words";

/** `/v1/console/batches`: upload, list, get, cancel, delete, results with the session. */
export const BATCHES = "/v1/console/batches";
/** The account's one webhook endpoint (set, read, remove). */
export const WEBHOOK_ENDPOINT = "/v1/console/webhook-endpoint";
/** The account's endpoints as a list: empty when none is set (what the Settings page reads). */
export const WEBHOOK_ENDPOINTS = "/v1/console/webhook-endpoints";

/** The limits of one upload (schema/batches.ts: MAX_BATCH_BYTES, MAX_BATCH_LINES). */
export const MAX_BATCH_BYTES = 100 * 1024 * 1024;
export const MAX_BATCH_LINES = 100_000;

export type BatchStatus = "queued" | "running" | "paused" | "completed" | "cancelled" | "expired" | "failed";

export interface Batch {
  id: string;
  object: "batch";
  status: BatchStatus;
  paused_reason: "insufficient_balance" | "test_daily_quota" | null;
  resumes_at: number | null;
  mode: "live" | "test";
  model: string | null;
  counts: { total: number; done: number; failed: number };
  usage: { input_tokens: number; charge_micro_cents: number };
  created: number;
  started: number | null;
  finished: number | null;
  expires_at: number;
  results_expire_at: number | null;
  failure: { code: string; message: string } | null;
}

export interface WebhookEndpoint {
  object: "webhook_endpoint";
  url: string;
  events: string[];
  created: number;
  secret: string | null;
}

/** Queued, running or paused: it may still run lines (cancel it; it cannot be deleted yet). */
export function isActive(b: Batch): boolean {
  return b.status === "queued" || b.status === "running" || b.status === "paused";
}

/** The status as a reader says it; what a pause waits for is worded by the page (it links and formats times). */
export const STATUS_WORDS: Record<BatchStatus, string> = {
  queued: "Queued",
  running: "Running",
  paused: "Paused",
  completed: "Completed",
  cancelled: "Cancelled",
  expired: "Expired: lines not run within 24 hours of the upload were never run",
  failed: "Failed",
};

/** An upload's error in words: `Line 4: <message> (body.questions.q)`, or the API's sentence for the whole file. */
export function uploadErrorText(e: unknown): string {
  return (e instanceof ApiError ? lineErrorText(e) : null) ?? errorText(e);
}
