import type { Dispatched } from "../clients/engine";
import { ApiError } from "../errors";
import type { MoneySubject } from "../limits/key-limits";
import type { OriginalResult } from "../stores/idempotency";
import type { UsageEvent } from "../stores/usage";
import { calibrateAnswers } from "./calibration";
import type { DecisionParts } from "./decision";
import type { MoneyPathDeps, MoneyPathInput } from "./money-path-types";

/**
 * A completed call replayed (spec: idempotency "Replay details"): nothing charged, nothing taken from the
 * limits; `id`, `created` and `usage` are the original's. A GPU original is recomputed on its exact version, by
 * a worker of the numerics class that computed it, and never on the fallback (no such worker → 503
 * `no_capacity`); a fallback original runs the normal path again.
 */
export async function replayDecision(
  deps: Pick<MoneyPathDeps, "engine" | "calibrations" | "gpuTrace">,
  input: MoneyPathInput,
  subject: MoneySubject,
  original: OriginalResult,
  event: UsageEvent,
): Promise<DecisionParts> {
  const gpuOriginal = original.served_by === "gpu";
  // The calibrations the original answered with, also after they were replaced or deleted (issue 44).
  const calibrations =
    gpuOriginal && original.calibrations
      ? await deps.calibrations.byIds(subject.accountId, original.calibrations)
      : new Map();
  const { distributions: _asked, ...request } = input.engineRequest;
  let out: Dispatched;
  try {
    out = await deps.engine.dispatch(
      {
        ...request,
        model: gpuOriginal ? original.model : request.model,
        ...(calibrations.size > 0 && { distributions: true }),
      },
      {
        fallback: !gpuOriginal && subject.mode === "live" ? input.resolved.fallback : null,
        tokens: input.tokens.input_tokens,
        ...(gpuOriginal && original.numerics_class && { numericsClass: original.numerics_class }),
        ...(deps.gpuTrace && { trace: deps.gpuTrace }),
      },
    );
  } catch (err) {
    if (gpuOriginal && err instanceof ApiError && err.status === 500) throw new ApiError("no_capacity");
    throw err;
  }
  Object.assign(event, {
    model: out.result.model,
    served_by: out.served_by,
    charge_micro_cents: 0,
    unit_price_micro_cents: original.usage.unit_price_micro_cents,
    tier: original.usage.tier,
  });
  return {
    id: original.id,
    created: original.created,
    model: out.result.model,
    served_by: out.served_by,
    calibration: out.result.calibration,
    answers: calibrateAnswers(input.engineRequest.questions, out, calibrations, input.engineRequest.state)
      .answers,
    usage: original.usage,
  };
}
