import { Evaluation, EvaluationPathParams } from "../../../schema/evaluations";
import { guarded, keyOwner } from "../../evaluations/owners";
import { getEvaluationResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** GET /v1/evaluations/{id}. */
export const getEvaluation = endpoint(
  {
    method: "get",
    path: "/v1/evaluations/{id}",
    operationId: "getEvaluation",
    summary: "Get an evaluation: status, progress and, once done, metrics per question",
    auth: { scope: "decide" },
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The evaluation.", Evaluation) },
    errors: ["live_key_not_allowed", "evaluation_not_found"],
  },
  function getEvaluationHandler(c) {
    return guarded(() => getEvaluationResponse(c, keyOwner(c)));
  },
);
