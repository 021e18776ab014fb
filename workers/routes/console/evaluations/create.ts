import { CreateEvaluationWire, Evaluation } from "../../../../schema/evaluations";
import { CREATE_ERRORS, consoleOwner, guarded } from "../../../evaluations/owners";
import { createEvaluationResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** POST /v1/console/evaluations (console twin of `createEvaluation`). */
export const createConsoleEvaluation = endpoint(
  {
    method: "post",
    path: "/v1/console/evaluations",
    operationId: "createConsoleEvaluation",
    summary: "Create an evaluation: score labelled items in the background (test keys only)",
    auth: "session+csrf",
    request: { body: { required: true, content: { "application/json": { schema: CreateEvaluationWire } } } },
    responses: { 201: jsonResponse("The evaluation, `queued`.", Evaluation) },
    errors: CREATE_ERRORS,
  },
  function createConsoleEvaluationHandler(c) {
    return guarded(() => createEvaluationResponse(c, consoleOwner(c)));
  },
);
