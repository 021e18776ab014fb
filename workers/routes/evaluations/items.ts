import { EvaluationItemList, EvaluationItemsQuery, EvaluationPathParams } from "../../../schema/evaluations";
import { guarded, keyOwner, LIST_ERRORS } from "../../evaluations/owners";
import { listItemsResponse } from "../../evaluations/service";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/** GET /v1/evaluations/{id}/items. */
export const listEvaluationItems = endpoint(
  {
    method: "get",
    path: "/v1/evaluations/{id}/items",
    operationId: "listEvaluationItems",
    summary: "List an evaluation's items with the decision each got",
    auth: { scope: "decide" },
    request: { params: EvaluationPathParams, query: EvaluationItemsQuery },
    responses: { 200: jsonResponse("A page of items in upload order.", EvaluationItemList) },
    errors: ["live_key_not_allowed", "evaluation_not_found", ...LIST_ERRORS],
  },
  function listEvaluationItemsHandler(c) {
    return guarded(() => listItemsResponse(c, keyOwner(c)));
  },
);
