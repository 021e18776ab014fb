import { Evaluation, EvaluationPathParams } from "../../../../schema/evaluations";
import { consoleOwner, guarded } from "../../../evaluations/owners";
import { cancelEvaluationResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** POST /v1/console/evaluations/{id}/cancel (console twin of `cancelEvaluation`). */
export const cancelConsoleEvaluation = endpoint(
  {
    method: "post",
    path: "/v1/console/evaluations/{id}/cancel",
    operationId: "cancelConsoleEvaluation",
    summary: "Cancel a queued, running or paused evaluation",
    auth: "session+csrf",
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The evaluation (a finished one as it is).", Evaluation) },
    errors: ["evaluation_not_found"],
  },
  function cancelConsoleEvaluationHandler(c) {
    return guarded(() => cancelEvaluationResponse(c, consoleOwner(c)));
  },
);
