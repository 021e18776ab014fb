import type { ValidatedDecide } from "../../schema/decide";
import type { ScoreRequest } from "../../schema/engine-protocol";
import { renderForEngine } from "../../schema/render";

/**
 * An item's engine request: what a decide with the same state and questions would send, at batch priority, with
 * the unrounded distributions a calibration is fitted on (issue 44).
 */
export function renderItem(request: ValidatedDecide, model: string, requestId: string): ScoreRequest {
  // `batch`: the GPU worker serves live decides first (issue 31: items queue behind live decides).
  return {
    ...renderForEngine({ ...request, model, fallback: "never" }, model, requestId),
    priority: "batch",
    distributions: true,
  };
}
