import { z } from "@hono/zod-openapi";
import { ACCOUNT_ID_PATTERN } from "../../../schema/ids";
import { nextWeekStart } from "../../../schema/periods";
import { euroString, UNIT_PRICE_MICRO_CENTS } from "../../../schema/pricing";
import { ApiError } from "../../errors";
import type { BalanceView } from "../../ledger/types";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

const int = (description: string) => z.number().int().openapi({ description });

/** GET /v1/balance body, also the console overview's base (field names beyond the spec's are documented in docs/decisions.md). */
export const BalanceObjectSchema = z
  .object({
    object: z.literal("balance"),
    account_id: z.string().regex(ACCOUNT_ID_PATTERN),
    balance_micro_cents: int("Prepaid balance in integer micro-cents (EUR 1 = 100,000,000)."),
    balance_eur: z
      .string()
      .openapi({ description: "The balance in euros, 8 decimals.", example: "100.00000000" }),
    currency: z.literal("EUR"),
    tier: z.enum(["t1", "t2", "t3"]).openapi({ description: "Tier in force this UTC month." }),
    unit_price_micro_cents: int("Price of one billable token."),
    month_to_date_tokens: int("Billable tokens since the start of the UTC month."),
    next_tier_at_tokens: z.number().int().nullable().openapi({ description: "Where the next tier starts." }),
    week_allowance_tokens: int("The plan's weekly allowance (0 without a plan)."),
    week_allowance_remaining_tokens: int("What is left of it this week."),
    week_allowance_resets_at: int(
      "Unix time (s) of the next Monday 00:00 UTC, when the allowance is full again.",
    ),
  })
  .openapi("Balance");

export type BalanceObject = z.infer<typeof BalanceObjectSchema>;

export function balanceObject(accountId: string, v: BalanceView, now: number = Date.now()): BalanceObject {
  return {
    object: "balance",
    account_id: accountId,
    balance_micro_cents: v.balance_micro_cents,
    balance_eur: euroString(v.balance_micro_cents),
    currency: "EUR",
    tier: v.tier,
    unit_price_micro_cents: UNIT_PRICE_MICRO_CENTS,
    month_to_date_tokens: v.month_tokens,
    next_tier_at_tokens: v.next_tier_at_tokens,
    week_allowance_tokens: v.week_allowance_tokens,
    week_allowance_remaining_tokens: v.week_allowance_left,
    week_allowance_resets_at: Math.floor(nextWeekStart(now) / 1000),
  };
}

/** GET /v1/balance: read from the account's ledger; scope `balance:read`. */
export const getBalance = endpoint(
  {
    method: "get",
    path: "/v1/balance",
    operationId: "getBalance",
    summary: "Balance and tier of the key's account",
    auth: { scope: "balance:read" },
    responses: { 200: jsonResponse("The account's balance.", BalanceObjectSchema) },
    errors: ["billing_unavailable"],
  },
  async function getBalanceHandler(c) {
    const key = c.var.apiKey;
    const view = await c.var
      .ledger(key.accountId)
      .balance()
      .catch(() => {
        throw new ApiError("billing_unavailable", { message: "Billing is temporarily unavailable." });
      });
    return c.json(balanceObject(key.accountId, view), 200);
  },
);
