import { z } from "@hono/zod-openapi";
import { cancelDowngrade, scheduleDowngrade } from "../../../billing/subscription-downgrade";
import { BODY_ERRORS, PLAN_ID, patternRule, readConsoleBody } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { SubscriptionSchema } from "./schema";

/**
 * POST /v1/console/subscription/downgrade (`scheduleSubscriptionDowngrade`), body `{plan}`: the active
 * subscription moves to the cheaper plan at the end of the current period; a seat on it is held until then.
 */
export const scheduleDowngradeRoute = endpoint(
  {
    method: "post",
    path: "/v1/console/subscription/downgrade",
    operationId: "scheduleSubscriptionDowngrade",
    summary: "Move to a cheaper plan at the end of the current period",
    auth: "session+csrf",
    request: {
      body: {
        content: { "application/json": { schema: z.object({ plan: z.string().regex(PLAN_ID) }) } },
        required: true,
      },
    },
    responses: {
      201: jsonResponse("Scheduled; `pending_downgrade` says when.", SubscriptionSchema),
      200: jsonResponse("The same downgrade was already scheduled.", SubscriptionSchema),
    },
    errors: [...BODY_ERRORS, "plan_sold_out", "maintenance"],
  },
  async function scheduleDowngradeHandler(c) {
    const { fields } = await readConsoleBody(c, { plan: patternRule(PLAN_ID, true) });
    const { created, view } = await scheduleDowngrade(c.var, {
      accountId: c.var.session.accountId,
      planId: fields.plan as string,
    });
    return c.json(view, created ? 201 : 200);
  },
);

/**
 * DELETE /v1/console/subscription/downgrade (`cancelSubscriptionDowngrade`): the scheduled downgrade is
 * called off and its seat freed; the subscription stays on its plan. Nothing scheduled → the same answer.
 */
export const cancelDowngradeRoute = endpoint(
  {
    method: "delete",
    path: "/v1/console/subscription/downgrade",
    operationId: "cancelSubscriptionDowngrade",
    summary: "Call off a scheduled downgrade",
    auth: "session+csrf",
    responses: { 200: jsonResponse("The subscription, no downgrade pending.", SubscriptionSchema) },
    errors: ["maintenance"],
  },
  async function cancelDowngradeHandler(c) {
    return c.json(await cancelDowngrade(c.var, c.var.session.accountId), 200);
  },
);
