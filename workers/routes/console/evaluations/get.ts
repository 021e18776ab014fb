import { Evaluation, EvaluationPathParams } from "../../../../schema/evaluations";
import { consoleOwner, guarded } from "../../../evaluations/owners";
import { getEvaluationResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/evaluations/{id} (console twin of `getEvaluation`). */
export const getConsoleEvaluation = endpoint(
  {
    method: "get",
    path: "/v1/console/evaluations/{id}",
    operationId: "getConsoleEvaluation",
    summary: "Get an evaluation: status, progress and, once done, metrics per question",
    auth: "session",
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The evaluation.", Evaluation) },
    errors: ["evaluation_not_found"],
  },
  function getConsoleEvaluationHandler(c) {
    return guarded(() => getEvaluationResponse(c, consoleOwner(c)));
  },
);
