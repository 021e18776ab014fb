import { z } from "@hono/zod-openapi";
import { requestFingerprint } from "../../../../schema/canonical-json";
import { createTopUpCheckout } from "../../../billing/top-up-checkout";
import { RETURN_PATH_PATTERN, TOP_UP_MAX_CENTS, TOP_UP_MIN_CENTS } from "../../../billing/top-up-rules";
import { BODY_ERRORS, intRule, patternRule, readConsoleBody } from "../../../http/console-body";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";
import { consoleReturnUrl } from "../return-url";

/** Body of createCheckoutSession. */
export const CheckoutSessionRequest = z.object({
  amount_cents: z
    .number()
    .int()
    .min(TOP_UP_MIN_CENTS)
    .max(TOP_UP_MAX_CENTS)
    .openapi({ description: "EUR credit in euro cents, excluding VAT.", example: 2_500 }),
  return_path: z
    .string()
    .regex(RETURN_PATH_PATTERN)
    .optional()
    .openapi({ description: "Console path to return to.", example: "/billing" }),
});

/** Answer of createCheckoutSession (spec: Checkout session). */
export const CheckoutSessionSchema = z.object({
  id: z.string().openapi({ example: "cs_test_a1b2c3" }),
  object: z.literal("checkout_session"),
  url: z.string().url().openapi({ description: "Where to send the browser." }),
  amount_cents: z.number().int(),
  currency: z.literal("EUR"),
  expires_at: z.string().datetime(),
});

/**
 * POST /v1/console/checkout-sessions (`createCheckoutSession`): a Stripe Checkout for a top-up. Auth is
 */
export const createCheckoutSession = endpoint(
  {
    method: "post",
    path: "/v1/console/checkout-sessions",
    operationId: "createCheckoutSession",
    summary: "Top up the balance through Stripe Checkout",
    auth: "session+csrf",
    request: {
      body: { content: { "application/json": { schema: CheckoutSessionRequest } }, required: true },
    },
    responses: {
      201: jsonResponse("The checkout session; send the browser to `url`.", CheckoutSessionSchema),
    },
    errors: [
      ...BODY_ERRORS,
      "idempotency_key_reused",
      "idempotency_in_progress",
      "top_up_limit_exceeded",
      "maintenance",
    ],
  },
  async function createCheckoutSessionHandler(c) {
    const { body, fields, idempotencyKey } = await readConsoleBody(c, {
      amount_cents: intRule(TOP_UP_MIN_CENTS, TOP_UP_MAX_CENTS),
      return_path: patternRule(RETURN_PATH_PATTERN, false),
    });
    const returnPath = (fields.return_path as string | undefined) ?? null;
    const { answer, replayed } = await createTopUpCheckout(c.var, {
      accountId: c.var.session.accountId,
      creditCents: fields.amount_cents as number,
      returnPath,
      returnUrl: consoleReturnUrl(c, returnPath),
      idempotencyKey,
      fingerprint: await requestFingerprint(body),
    });
    if (replayed) c.header("idempotent-replayed", "true");
    return c.json(answer, 201);
  },
);
