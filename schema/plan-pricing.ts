/**
 * Plan arithmetic (issue 14; formulas and rounding in docs/decisions.md, "Plans"). Integers only: money in
 * minor units or micro-cents, tokens as whole numbers; intermediate products go through BigInt.
 */

/** Pay-as-you-go price per input token (spec: Billing rules); schema/pricing.ts charges the same. */
export const STANDARD_UNIT_PRICE_MICRO_CENTS = 5;

/** 1 euro cent = 1,000,000 micro-cents (1 EUR = 100,000,000). */
export const MICRO_CENTS_PER_CENT = 1_000_000;

/** The reset refills the week at this share of the monthly price, in percent. */
export const RESET_PERCENT = 25;

// A month is 1/12 of a mean Gregorian year (365.2425 days), so a 7-day week is 7 × 12 / 365.2425 of a
// month = 840,000 / 3,652,425.
const WEEK_PER_MONTH_NUM = 840_000n;
const WEEK_PER_MONTH_DEN = 3_652_425n;

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

function safe(n: bigint, what: string): number {
  const v = Number(n);
  if (!Number.isSafeInteger(v)) throw new RangeError(`${what} ${n} is not a safe integer`);
  return v;
}

function positiveInt(n: number, what: string): bigint {
  if (!Number.isSafeInteger(n) || n < 1) throw new RangeError(`${what} must be a positive integer, got ${n}`);
  return BigInt(n);
}

/**
 * Input tokens a month of the plan includes: its EUR price × included multiple at the standard rate,
 * `price_cents × multiple × 1,000,000 / 5`, always whole (1,000,000 is a multiple of 5).
 */
export function monthlyIncludedTokens(priceCents: number, includedMultiple: number): number {
  const microCents =
    positiveInt(priceCents, "price_cents") *
    positiveInt(includedMultiple, "included_multiple") *
    BigInt(MICRO_CENTS_PER_CENT);
  return safe(microCents / BigInt(STANDARD_UNIT_PRICE_MICRO_CENTS), "monthly tokens");
}

/**
 * Tokens per 7-day week: the month's tokens × 840,000 / 3,652,425, rounded UP, so 365.2425 / 7 weeks
 * together never include less than 12 months' worth (by less than one token per week).
 */
export function weekAllowanceTokens(monthlyTokens: number): number {
  const m = positiveInt(monthlyTokens, "monthly tokens");
  return safe(ceilDiv(m * WEEK_PER_MONTH_NUM, WEEK_PER_MONTH_DEN), "week allowance");
}

/**
 * The plan's price per included token in integer micro-cents: price ÷ monthly tokens (= 5 ÷ included
 * multiple), rounded UP so the catalogue never shows a lower price than the plan really costs; at least 1.
 */
export function effectiveUnitPriceMicroCents(priceCents: number, monthlyTokens: number): number {
  const price = positiveInt(priceCents, "price_cents") * BigInt(MICRO_CENTS_PER_CENT);
  return safe(ceilDiv(price, positiveInt(monthlyTokens, "monthly tokens")), "effective unit price");
}

/**
 * Reset price in the same currency's minor unit: 25 % of the monthly price, rounded half up to a whole
 * minor unit (`floor((price × 25 + 50) / 100)`), so any price of at least 2 minor units resets for ≥ 1.
 */
export function resetPriceMinor(priceMinor: number): number {
  const p = positiveInt(priceMinor, "price");
  return safe((p * BigInt(RESET_PERCENT) + 50n) / 100n, "reset price");
}

/** An exchange rate as a ratio of integers: 1 EUR = `num / den` of the currency. */
export interface ReferenceRate {
  num: number;
  den: number;
}

/**
 * A non-EUR price from a EUR amount: EUR cents × rate, rounded UP to a whole currency unit (100 minor
 * units), so the local price is a round number and never below the EUR price at the reference rate.
 */
export function localPriceMinor(eurCents: number, rate: ReferenceRate): number {
  const scaled = positiveInt(eurCents, "eur cents") * positiveInt(rate.num, "rate num");
  return safe(ceilDiv(scaled, positiveInt(rate.den, "rate den") * 100n) * 100n, "local price");
}
