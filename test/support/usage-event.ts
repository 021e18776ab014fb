// A usage event builder with no Node imports, so the worker tier (workerd) can use it too.
import { ulid } from "ulid";
import type { UsageEvent } from "../../workers/stores/usage";

/** A successful live GPU call of `tokens` tokens at `at`, with overrides. */
export function usageEvent(accountId: string, at: number, over: Partial<UsageEvent> = {}): UsageEvent {
  const tokens = over.input_tokens ?? 100;
  return {
    request_id: `req_${ulid()}`,
    account_id: accountId,
    key_id: "key_A",
    mode: "live",
    model: "svc-1.0.0",
    served_by: "gpu",
    input_tokens: tokens,
    state_tokens: tokens - 1,
    question_tokens: 1,
    charge_micro_cents: tokens * 5,
    unit_price_micro_cents: 5,
    tier: "t1",
    status: 200,
    error_code: null,
    replayed: false,
    client_request_id: null,
    client_name: null,
    client_version: null,
    at,
    ...over,
  };
}
