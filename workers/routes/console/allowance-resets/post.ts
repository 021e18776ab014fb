import { z } from "@hono/zod-openapi";
import { createResetCheckout } from "../../../billing/reset-checkout";
import { RETURN_PATH_PATTERN } from "../../../billing/top-up-rules";
import { BODY_ERRORS, patternRule, readConsoleBody } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { consoleReturnUrl } from "../return-url";

const ResetCheckoutSchema = z.object({
  id: z.string(),
  object: z.literal("allowance_reset_checkout"),
  url: z.string().url(),
  plan: z.string(),
  currency: z.enum(["EUR", "USD", "GBP", "INR"]),
  price_cents: z
    .number()
    .int()
    .openapi({ description: "25 % of the monthly price, minor units, excl. VAT." }),
  expires_at: z.string().datetime(),
});

/**
 * POST /v1/console/allowance-resets (`createAllowanceReset`), body `{return_path?}`: a Checkout that, once
 * paid, refills the current week's plan allowance.
 */
export const createAllowanceReset = endpoint(
  {
    method: "post",
    path: "/v1/console/allowance-resets",
    operationId: "createAllowanceReset",
    summary: "Refill this week's plan allowance through Stripe Checkout",
    auth: "session+csrf",
    request: {
      body: {
        content: {
          "application/json": {
            schema: z.object({ return_path: z.string().regex(RETURN_PATH_PATTERN).optional() }),
          },
        },
        required: true,
      },
    },
    responses: { 201: jsonResponse("The checkout for the reset.", ResetCheckoutSchema) },
    errors: [...BODY_ERRORS, "maintenance"],
  },
  async function createAllowanceResetHandler(c) {
    const { fields } = await readConsoleBody(c, { return_path: patternRule(RETURN_PATH_PATTERN, false) });
    const answer = await createResetCheckout(c.var, {
      accountId: c.var.session.accountId,
      returnUrl: consoleReturnUrl(c, (fields.return_path as string | undefined) ?? null),
    });
    return c.json(answer, 201);
  },
);
