import { nextTierAt, type Tier, tierFor } from "../../schema/pricing";
import type { BalanceView } from "./types";

/** Refuses an amount that is not a non-negative safe integer (tokens, micro-cents). */
export function assertAmount(n: number, what: string): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative safe integer`);
}

/** Refuses a credit that is not a positive safe integer of micro-cents. */
export function assertCredit(amountMicroCents: number): void {
  if (!Number.isSafeInteger(amountMicroCents) || amountMicroCents <= 0)
    throw new RangeError("amount_micro_cents must be a positive safe integer");
}

/** Refuses a balance past ±2^53 micro-cents; returns it otherwise. */
export function checkedBalance(after: number, message: string): number {
  if (!Number.isSafeInteger(after)) throw new RangeError(message);
  return after;
}

/** What is left of the week's plan allowance (never below 0). */
export const allowanceLeft = (allowance: number, used: number) => Math.max(0, allowance - used);

/**
 * All or nothing: the week's allowance covers the whole request (its tokens), or the balance pays all of the
 * charge.
 */
export function splitCharge(
  tokens: number,
  amountMicroCents: number,
  left: number,
): { allowanceTokens: number; fromBalance: number } {
  return left >= tokens
    ? { allowanceTokens: tokens, fromBalance: 0 }
    : { allowanceTokens: 0, fromBalance: amountMicroCents };
}

/** The tier a debit is priced in: `test` for test keys, else the month's tokens before it. */
export const debitTier = (test: boolean, monthTokens: number): Tier | "test" =>
  test ? "test" : tierFor(monthTokens);

/** What a chargeback takes now so that a payment's chargebacks together reach `target` and never pass it. */
export const chargebackTake = (target: number, takenBefore: number) => Math.max(0, target - takenBefore);

/** The balance as the account reads it, from the ledger's counters. */
export function balanceView(v: {
  balance: number;
  month: string;
  monthTokens: number;
  week: string;
  allowance: number;
  weekUsed: number;
}): BalanceView {
  return {
    balance_micro_cents: v.balance,
    month: v.month,
    month_tokens: v.monthTokens,
    tier: tierFor(v.monthTokens),
    next_tier_at_tokens: nextTierAt(v.monthTokens),
    week: v.week,
    week_allowance_tokens: v.allowance,
    week_allowance_left: allowanceLeft(v.allowance, v.weekUsed),
  };
}
