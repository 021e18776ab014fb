import { DeletedEvaluation, EvaluationPathParams } from "../../../schema/evaluations";
import { guarded, keyOwner } from "../../evaluations/owners";
import { deleteEvaluationResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** DELETE /v1/evaluations/{id}. */
export const deleteEvaluation = endpoint(
  {
    method: "delete",
    path: "/v1/evaluations/{id}",
    operationId: "deleteEvaluation",
    summary: "Delete an evaluation with its items and answers",
    auth: { scope: "decide" },
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The deleted evaluation's id.", DeletedEvaluation) },
    errors: ["live_key_not_allowed", "evaluation_not_found"],
  },
  function deleteEvaluationHandler(c) {
    return guarded(() => deleteEvaluationResponse(c, keyOwner(c)));
  },
);
