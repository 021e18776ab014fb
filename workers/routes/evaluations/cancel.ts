import { Evaluation, EvaluationPathParams } from "../../../schema/evaluations";
import { guarded, keyOwner } from "../../evaluations/owners";
import { cancelEvaluationResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** POST /v1/evaluations/{id}/cancel. */
export const cancelEvaluation = endpoint(
  {
    method: "post",
    path: "/v1/evaluations/{id}/cancel",
    operationId: "cancelEvaluation",
    summary: "Cancel a queued, running or paused evaluation",
    auth: { scope: "decide" },
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The evaluation (a finished one as it is).", Evaluation) },
    errors: ["live_key_not_allowed", "evaluation_not_found"],
  },
  function cancelEvaluationHandler(c) {
    return guarded(() => cancelEvaluationResponse(c, keyOwner(c)));
  },
);
