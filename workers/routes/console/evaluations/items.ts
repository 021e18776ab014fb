import {
  EvaluationItemList,
  EvaluationItemsQuery,
  EvaluationPathParams,
} from "../../../../schema/evaluations";
import { consoleOwner, guarded, LIST_ERRORS } from "../../../evaluations/owners";
import { listItemsResponse } from "../../../evaluations/service";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/** GET /v1/console/evaluations/{id}/items (console twin of `listEvaluationItems`). */
export const listConsoleEvaluationItems = endpoint(
  {
    method: "get",
    path: "/v1/console/evaluations/{id}/items",
    operationId: "listConsoleEvaluationItems",
    summary: "List an evaluation's items with the decision each got",
    auth: "session",
    request: { params: EvaluationPathParams, query: EvaluationItemsQuery },
    responses: { 200: jsonResponse("A page of items in upload order.", EvaluationItemList) },
    errors: ["evaluation_not_found", ...LIST_ERRORS],
  },
  function listConsoleEvaluationItemsHandler(c) {
    return guarded(() => listItemsResponse(c, consoleOwner(c)));
  },
);
