import type { Context } from "hono";
import { ApiError } from "../errors";
import type { AppEnv } from "../middleware/context";
import type { OriginalResult } from "../stores/idempotency";
import type { UsageEvent } from "../stores/usage";
import type { MoneyPathInput } from "./admission";
import { decisionJson } from "./decision";
import { dispatch, NO_CAPACITY_RETRY_AFTER } from "./dispatch";
import type { MoneySubject } from "./rate-limits";

/**
 * A completed call replayed (spec: idempotency "Replay details"): nothing charged, nothing taken from the
 * limits; `id`, `created` and `usage` are the original's. A GPU original is recomputed on its exact version
 * and never on the fallback (no GPU → 503 `no_capacity`); a fallback original runs the normal path again.
 */
export async function replayDecision(
  c: Context<AppEnv>,
  input: MoneyPathInput,
  subject: MoneySubject,
  original: OriginalResult,
  event: UsageEvent,
): Promise<Response> {
  const gpuOriginal = original.served_by === "gpu";
  let out: Awaited<ReturnType<typeof dispatch>>;
  try {
    out = await dispatch(
      c.env,
      { ...input.engineRequest, model: gpuOriginal ? original.model : input.engineRequest.model },
      { fallback: !gpuOriginal && subject.mode === "live" ? input.resolved.fallback : null },
    );
  } catch (err) {
    if (gpuOriginal && err instanceof ApiError && err.status === 500)
      throw new ApiError("no_capacity", { retryAfter: NO_CAPACITY_RETRY_AFTER });
    throw err;
  }
  Object.assign(event, {
    model: out.result.model,
    served_by: out.served_by,
    charge_micro_cents: 0,
    unit_price_micro_cents: original.usage.unit_price_micro_cents,
    tier: original.usage.tier,
  });
  c.header("idempotent-replayed", "true");
  c.header("content-type", "application/json");
  return c.body(
    decisionJson({
      id: original.id,
      created: original.created,
      model: out.result.model,
      served_by: out.served_by,
      calibration: out.result.calibration,
      answers: out.result.answers,
      usage: original.usage,
    }),
    200,
  );
}
