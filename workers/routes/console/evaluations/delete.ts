import { DeletedEvaluation, EvaluationPathParams } from "../../../../schema/evaluations";
import { consoleOwner, guarded } from "../../../evaluations/owners";
import { deleteEvaluationResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** DELETE /v1/console/evaluations/{id} (console twin of `deleteEvaluation`). */
export const deleteConsoleEvaluation = endpoint(
  {
    method: "delete",
    path: "/v1/console/evaluations/{id}",
    operationId: "deleteConsoleEvaluation",
    summary: "Delete an evaluation with its items and answers",
    auth: "session+csrf",
    request: { params: EvaluationPathParams },
    responses: { 200: jsonResponse("The deleted evaluation's id.", DeletedEvaluation) },
    errors: ["evaluation_not_found"],
  },
  function deleteConsoleEvaluationHandler(c) {
    return guarded(() => deleteEvaluationResponse(c, consoleOwner(c)));
  },
);
