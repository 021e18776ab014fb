import type { Context } from "hono";
import { ApiError } from "../errors";
import type { AppEnv } from "../middleware/context";
import { recordUsageEvent } from "../stores/usage";
import { background } from "./admission";

/**
 * Records a decide call rejected before the money path (steps 2–6: 400, 404, 413, 422) as a usage event
 * with no tokens and no charge, so usage reports count every call that ended in an error.
 */
export function recordRejectedCall(c: Context<AppEnv>, err: unknown): void {
  const key = c.get("apiKey");
  if (!key || !c.env.DATABASE_URL) return;
  background(
    c,
    recordUsageEvent(c.env, {
      request_id: c.get("requestId"),
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
      status: err instanceof ApiError ? err.status : 500,
      error_code: err instanceof ApiError ? err.code : "internal_error",
      replayed: false,
      at: Date.now(),
    }),
  );
}
