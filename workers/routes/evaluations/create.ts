import { CreateEvaluationWire, Evaluation } from "../../../schema/evaluations";
import { CREATE_ERRORS, guarded, keyOwner } from "../../evaluations/owners";
import { createEvaluationResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** POST /v1/evaluations. */
export const createEvaluation = endpoint(
  {
    method: "post",
    path: "/v1/evaluations",
    operationId: "createEvaluation",
    summary: "Create an evaluation: score labelled items in the background (test keys only)",
    auth: { scope: "decide" },
    request: { body: { required: true, content: { "application/json": { schema: CreateEvaluationWire } } } },
    responses: { 201: jsonResponse("The evaluation, `queued`.", Evaluation) },
    errors: ["live_key_not_allowed", ...CREATE_ERRORS],
  },
  function createEvaluationHandler(c) {
    return guarded(() => createEvaluationResponse(c, keyOwner(c)));
  },
);
