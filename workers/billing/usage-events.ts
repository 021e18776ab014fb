import type { Context } from "hono";
import type { AppEnv } from "../context/app-env";
import { inBackground } from "../context/background";
import { ApiError } from "../errors";
import type { KeyRecord } from "../stores/keys";
import type { UsageEvent } from "../stores/usage";

/**
 * The usage event of an authenticated decide call as it starts: no model, tokens or charge yet, and a 500
 * until it ends. Later steps fill in what they learn; a call rejected in steps 2–6 keeps zero tokens.
 */
export function startUsageEvent(
  key: KeyRecord,
  requestId: string,
  client: { requestId: string | undefined; userAgent: string | undefined },
  at: number = Date.now(),
): UsageEvent {
  const agent = clientOf(client.userAgent);
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
    client_request_id: client.requestId ?? null,
    client_name: agent.name,
    client_version: agent.version,
  };
}

const PRODUCT = /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,64})(?:\/([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}))?(?:\s|$)/;

/** The client's name and version: the first product token of `user-agent` (RFC 9110), e.g. `svc-sdk/1.2.0`. */
export function clientOf(userAgent: string | undefined): { name: string | null; version: string | null } {
  const m = userAgent === undefined ? null : PRODUCT.exec(userAgent.trim());
  return { name: m?.[1] ?? null, version: m?.[2] ?? null };
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
  // The usage log reports events it could not write (workers/stores/usage.ts); nothing to add here.
  inBackground(c, c.get("usage").record(event));
}
