import { EvaluationList, EvaluationListQuery } from "../../../../schema/evaluations";
import { consoleOwner, guarded, LIST_ERRORS } from "../../../evaluations/owners";
import { listEvaluationsResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/evaluations (console twin of `listEvaluations`). */
export const listConsoleEvaluations = endpoint(
  {
    method: "get",
    path: "/v1/console/evaluations",
    operationId: "listConsoleEvaluations",
    summary: "List the account's evaluations, newest first",
    auth: "session",
    request: { query: EvaluationListQuery },
    responses: { 200: jsonResponse("A page of evaluations.", EvaluationList) },
    errors: LIST_ERRORS,
  },
  function listConsoleEvaluationsHandler(c) {
    return guarded(() => listEvaluationsResponse(c, consoleOwner(c)));
  },
);
