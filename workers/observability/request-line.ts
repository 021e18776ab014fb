import type { UsageEvent } from "../stores/usage";
import { logEvent } from "./log";
import { type MetricsDataset, writeRequestPoint } from "./metrics";

/** Who asked: a live call (HTTP, answered while the caller waits) or an item of a batch. */
export type Priority = "live" | "batch";

/**
 * What an idempotency key did to the call: `new` (a key was sent and this call was not answered from a record),
 * `replay` (answered from the completed original), `in_progress` (409: the original still runs), `reused`
 * (the key came with another body). Null: no key sent, or not a decide.
 */
export type IdempotencyOutcome = "new" | "replay" | "in_progress" | "reused";

/**
 * One request's line (issue 43): written once per request at the edge, and once per batch item by the batch
 * runner (`priority: "batch"`). Identifiers, counts and outcomes only: never a state, a question, a secret or a
 * cookie. Null where a field does not apply (a console call has no key, a refused call no model).
 */
export interface RequestLineFields {
  /** `req_…`: the response's `x-request-id` (for a batch item, the item's own id). */
  request_id: string;
  /** The operation id (`decide`, `listKeys`, …); `METHOD /path` for a console page; null when no route matched. */
  route: string | null;
  status: number;
  /** The error envelope's `code`; null on success. */
  error_code: string | null;
  /** The API key's id (`key_…`, `playground_…` for the console playground), never its secret. */
  key_id: string | null;
  account_id: string | null;
  mode: "live" | "test" | null;
  /** The exact version that answered (or was asked for, on a refused call). */
  model: string | null;
  served_by: "gpu" | "fallback" | null;
  /** Billable input tokens (state + questions). */
  input_tokens: number | null;
  charge_micro_cents: number | null;
  /** Wall time at the edge, from the first middleware to the response (batch: the item's). */
  latency_ms: number;
  /** Time spent in GPU workers' `/v1/score` calls, summed over attempts; null when nothing was dispatched. */
  gpu_ms: number | null;
  /** GPU workers tried (0: none could take it); null when nothing was dispatched. */
  gpu_attempts: number | null;
  idempotency: IdempotencyOutcome | null;
  priority: Priority;
}

/**
 * Writes a request's line (event `request`; level `warn` for a 5xx, else `info`) and, given the Analytics Engine
 * dataset, its data point. Batch items call it with `priority: "batch"` (see `usageFields` for the rest).
 */
export function logRequestLine(fields: RequestLineFields, metrics?: MetricsDataset): void {
  logEvent(fields.status >= 500 ? "warn" : "info", "request", { ...fields });
  if (metrics) writeRequestPoint(metrics, fields);
}

/** The fields a decide's usage event already holds (one source for the usage log and the request line). */
export function usageFields(
  event: UsageEvent,
): Pick<
  RequestLineFields,
  | "status"
  | "error_code"
  | "key_id"
  | "account_id"
  | "mode"
  | "model"
  | "served_by"
  | "input_tokens"
  | "charge_micro_cents"
> {
  return {
    status: event.status,
    error_code: event.error_code,
    key_id: event.key_id,
    account_id: event.account_id,
    mode: event.mode,
    model: event.model,
    served_by: event.served_by,
    input_tokens: event.input_tokens,
    charge_micro_cents: event.charge_micro_cents,
  };
}

/** The idempotency outcome of a decide that ended as `event`; null when no key was sent. */
export function idempotencyOutcome(keySent: boolean, event: UsageEvent): IdempotencyOutcome | null {
  if (!keySent) return null;
  if (event.replayed) return "replay";
  if (event.error_code === "idempotency_in_progress") return "in_progress";
  if (event.error_code === "idempotency_key_reused") return "reused";
  return "new";
}
