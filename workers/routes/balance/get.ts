import { Hono } from "hono";
import { publishRateLimit, subjectOf } from "../../decide/admission";
import { currentRateLimitState } from "../../decide/rate-limits";
import { ApiError } from "../../errors";
import { euroString, UNIT_PRICE_MICRO_CENTS } from "../../ledger/tiers";
import type { BalanceView } from "../../ledger/types";
import type { AppEnv } from "../../middleware/context";

/** GET /v1/balance body (field names beyond the spec's are documented in docs/decisions.md). */
export interface BalanceObject {
  object: "balance";
  account_id: string;
  balance_micro_cents: number;
  /** The balance in euros as a decimal string with 8 decimals (1 micro-cent = EUR 0.00000001). */
  balance_eur: string;
  currency: "EUR";
  tier: BalanceView["tier"];
  unit_price_micro_cents: number;
  month_to_date_tokens: number;
  next_tier_at_tokens: number | null;
  week_allowance_tokens: number;
  week_allowance_remaining_tokens: number;
}

export function balanceObject(accountId: string, v: BalanceView): BalanceObject {
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
  };
}

/** GET /v1/balance: scope `balance:read` (route policy); read from the account's ledger. */
export const balanceRoutes = new Hono<AppEnv>().get("/v1/balance", async function getBalance(c) {
  const key = c.get("apiKey");
  const [view, limits] = await Promise.all([
    c.env.LEDGER.get(c.env.LEDGER.idFromName(key.accountId))
      .balance()
      .catch(() => {
        throw new ApiError("billing_unavailable", {
          retryAfter: 5,
          message: "Billing is temporarily unavailable.",
        });
      }),
    currentRateLimitState(c.env, subjectOf(key)),
  ]);
  if (limits) publishRateLimit(c, limits);
  return c.json(balanceObject(key.accountId, view));
});
