import { z } from "@hono/zod-openapi";
import { requirePlan } from "../../../billing/subscription-checkout";
import { BODY_ERRORS, PLAN_ID, patternRule, readConsoleBody } from "../../../http/console-body";
import { joinWaitingList } from "../../../stores/waiting-list";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

const WaitingListEntrySchema = z.object({
  object: z.literal("waiting_list_entry"),
  plan: z.string(),
  position: z.number().int().openapi({ description: "1 = invited next (0 once invited)." }),
  joined_at: z.string().datetime(),
  invited_at: z.string().datetime().nullable().openapi({ description: "When a seat was held for 72 hours." }),
});

/**
 * POST /v1/console/waiting-list (`joinWaitingList`), body `{plan}`: the account waits for a seat of the plan;
 * when one frees, the first waiting account gets it held for 72 hours. Joining again keeps the place.
 *
 */
export const joinWaitingListRoute = endpoint(
  {
    method: "post",
    path: "/v1/console/waiting-list",
    operationId: "joinWaitingList",
    summary: "Wait for a seat of a sold-out plan",
    auth: "session+csrf",
    request: {
      body: { content: { "application/json": { schema: z.object({ plan: z.string() }) } }, required: true },
    },
    responses: { 201: jsonResponse("The account's place on the waiting list.", WaitingListEntrySchema) },
    errors: BODY_ERRORS,
  },
  async function joinWaitingListHandler(c) {
    const { fields } = await readConsoleBody(c, { plan: patternRule(PLAN_ID, true) });
    const plan = requirePlan(fields.plan as string);
    const entry = await joinWaitingList(c.var.db, c.var.session.accountId, plan.id);
    return c.json(
      {
        object: "waiting_list_entry" as const,
        plan: plan.id,
        position: entry.invited_at ? 0 : entry.position,
        joined_at: new Date(entry.joined_at).toISOString(),
        invited_at: entry.invited_at ? new Date(entry.invited_at).toISOString() : null,
      },
      201,
    );
  },
);
