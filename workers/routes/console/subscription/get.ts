import { subscriptionView } from "../../../billing/subscription-view";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { SubscriptionSchema } from "./schema";

/** GET /v1/console/subscription (`getSubscription`): the account's plan, period end and scheduled downgrade. */
export const getSubscription = endpoint(
  {
    method: "get",
    path: "/v1/console/subscription",
    operationId: "getSubscription",
    summary: "The signed-in account's subscription and its scheduled downgrade",
    auth: "session",
    responses: { 200: jsonResponse("The subscription (fields null without one).", SubscriptionSchema) },
    errors: [],
  },
  async function getSubscriptionHandler(c) {
    return c.json(await subscriptionView(c.var.db, c.var.session.accountId), 200);
  },
);
