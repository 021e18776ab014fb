import type { Context } from "hono";
import { ApiError } from "../errors";
import type { AppEnv } from "../middleware/context";
import type { KeyRecord } from "../stores/keys";
import type { UsageEvent } from "../stores/usage";

/**
 * The usage event of an authenticated decide call as it starts: no model, tokens or charge yet, and a 500
 * until it ends. Later steps fill in what they learn; a call rejected in steps 2–6 keeps zero tokens.
 */
export function startUsageEvent(key: KeyRecord, requestId: string, at: number = Date.now()): UsageEvent {
  return {
    request_id: requestId,
    account_id: key.accountId,
    key_id: key.id,
    mode: key.mode,
    model: null,
    served_by: null,
    input_tokens: 0,
    state_tokens: 0,
    question_tokens: 0,
    charge_micro_cents: 0,
    unit_price_micro_cents: 0,
    tier: null,
    status: 500,
    error_code: "internal_error",
    replayed: false,
    at,
  };
}

/** Records how the call ended: 200, or the error's status and code (`internal_error` for anything else). */
export function endUsageEvent(event: UsageEvent, err: unknown | null): void {
  if (err === null) {
    event.status = 200;
    event.error_code = null;
    return;
  }
  event.status = err instanceof ApiError ? err.status : 500;
  event.error_code = err instanceof ApiError ? err.code : "internal_error";
}

/** Writes the event after the response (Workers `waitUntil`; detached where there is no execution context). */
export function recordUsageInBackground(c: Context<AppEnv>, event: UsageEvent): void {
  const write = c.var.usage
    .record(event)
    .catch((err) => console.error("usage event not written", err instanceof Error ? err.message : err));
  try {
    c.executionCtx.waitUntil(write);
  } catch {
    void write;
  }
}
