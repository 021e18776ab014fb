import { z } from "@hono/zod-openapi";
import { ApiError } from "../../../errors";
import { TEST_DAILY_QUOTA } from "../../../limits/key-limits";
import { BalanceObjectSchema, balanceObject } from "../../balance/get";
import { endpoint } from "../../define";
import { jsonResponse } from "../../responses";

const OverviewObject = BalanceObjectSchema.extend({
  object: z.literal("overview"),
  email: z.string().nullable(),
  test_daily_quota_tokens: z
    .number()
    .int()
    .openapi({ description: "Free test tokens per UTC day (test keys + playground)." }),
}).openapi("ConsoleOverview");

/**
 * GET /v1/console/overview: the signed-in account's balance (micro-cents and euros), tier, month-to-date
 * tokens and where the next tier starts, read from its ledger — the same fields as GET /v1/balance.
 */
export const getOverview = endpoint(
  {
    method: "get",
    path: "/v1/console/overview",
    operationId: "getConsoleOverview",
    summary: "Balance, tier and month-to-date usage of the signed-in account",
    auth: "session",
    responses: { 200: jsonResponse("The overview.", OverviewObject) },
    errors: ["billing_unavailable"],
  },
  async function getOverviewHandler(c) {
    const { accountId, email } = c.var.session;
    const view = await c.var
      .ledger(accountId)
      .balance()
      .catch(() => {
        throw new ApiError("billing_unavailable", { message: "Billing is temporarily unavailable." });
      });
    return c.json(
      {
        ...balanceObject(accountId, view),
        object: "overview" as const,
        email,
        test_daily_quota_tokens: TEST_DAILY_QUOTA,
      },
      200,
    );
  },
);
