import { PlanList } from "../../../../schema/plan-list";
import { currentPlanList } from "../../../billing/plan-list";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

/**
 * GET /v1/console/plans (`listPlans`): the plan list of GET /v1/plans for a signed-in caller, seat counts at
 * most 10 seconds old.
 */
export const listPlans = endpoint(
  {
    method: "get",
    path: "/v1/console/plans",
    operationId: "listPlans",
    summary: "Plans, seats and top-up packs",
    auth: "session",
    responses: { 200: jsonResponse("The plan list.", PlanList) },
    errors: [],
  },
  async function listPlansHandler(c) {
    return c.json(await currentPlanList(c.var.db), 200);
  },
);
