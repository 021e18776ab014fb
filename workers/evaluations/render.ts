import type { ValidatedDecide } from "../../schema/decide";
import type { ScoreRequest } from "../../schema/engine-protocol";
import { renderForEngine } from "../../schema/render";

/** An item's engine request: exactly what a decide with the same state and questions would send. */
export function renderItem(request: ValidatedDecide, model: string, requestId: string): ScoreRequest {
  return renderForEngine({ ...request, model, fallback: "never" }, model, requestId);
}
