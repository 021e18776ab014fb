import { z } from "@hono/zod-openapi";
import { orMaintenance } from "../../../accounts/unavailable";
import { createSubscriptionCheckout } from "../../../billing/subscription-checkout";
import { RETURN_PATH_PATTERN } from "../../../billing/top-up-rules";
import { BODY_ERRORS, PLAN_ID, patternRule, readConsoleBody } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { consoleReturnUrl } from "../return-url";

const SubscriptionCheckoutSchema = z.object({
  id: z.string().openapi({ example: "cs_test_a1b2c3" }),
  object: z.literal("subscription_checkout"),
  url: z.string().url().openapi({ description: "Where to send the browser." }),
  plan: z.string().openapi({ example: "hot" }),
  currency: z.enum(["EUR", "USD", "GBP", "INR"]),
  price_cents: z
    .number()
    .int()
    .openapi({ description: "Monthly price in the currency's minor unit, excl. VAT." }),
  expires_at: z
    .string()
    .datetime()
    .openapi({ description: "At most an hour out; the seat is held until then." }),
});

/**
 * POST /v1/console/subscription-checkouts (`createSubscriptionCheckout`), body `{plan, return_path?}`: at
 * most 10 an hour per account (429 `checkouts_per_hour`), then the checkout (billing/subscription-checkout).
 */
export const createSubscriptionCheckoutRoute = endpoint(
  {
    method: "post",
    path: "/v1/console/subscription-checkouts",
    operationId: "createSubscriptionCheckout",
    summary: "Subscribe to a plan through Stripe Checkout",
    auth: "session+csrf",
    request: {
      body: {
        content: {
          "application/json": {
            schema: z.object({
              plan: z.string().regex(PLAN_ID),
              return_path: z.string().regex(RETURN_PATH_PATTERN).optional(),
            }),
          },
        },
        required: true,
      },
    },
    responses: {
      201: jsonResponse("The checkout; a seat is held until it expires.", SubscriptionCheckoutSchema),
    },
    errors: [
      ...BODY_ERRORS,
      "plan_sold_out",
      "checkout_renewals_exceeded",
      "checkouts_per_hour",
      "maintenance",
    ],
  },
  async function createSubscriptionCheckoutHandler(c) {
    const { fields } = await readConsoleBody(c, {
      plan: patternRule(PLAN_ID, true),
      return_path: patternRule(RETURN_PATH_PATTERN, false),
    });
    await orMaintenance("checkout limits", () => c.var.checkoutLimits.planCheckout(c.var.session.accountId));
    const cf = (c.req.raw as Request & { cf?: { country?: string } }).cf;
    const answer = await createSubscriptionCheckout(c.var, {
      accountId: c.var.session.accountId,
      planId: fields.plan as string,
      returnUrl: consoleReturnUrl(c, (fields.return_path as string | undefined) ?? null),
      country: cf?.country,
    });
    return c.json(answer, 201);
  },
);
