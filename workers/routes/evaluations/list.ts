import { EvaluationList, EvaluationListQuery } from "../../../schema/evaluations";
import { guarded, keyOwner, LIST_ERRORS } from "../../evaluations/owners";
import { listEvaluationsResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** GET /v1/evaluations. */
export const listEvaluations = endpoint(
  {
    method: "get",
    path: "/v1/evaluations",
    operationId: "listEvaluations",
    summary: "List the account's evaluations, newest first",
    auth: { scope: "decide" },
    request: { query: EvaluationListQuery },
    responses: { 200: jsonResponse("A page of evaluations.", EvaluationList) },
    errors: ["live_key_not_allowed", ...LIST_ERRORS],
  },
  function listEvaluationsHandler(c) {
    return guarded(() => listEvaluationsResponse(c, keyOwner(c)));
  },
);
