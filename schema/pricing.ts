import { STANDARD_UNIT_PRICE_MICRO_CENTS } from "./plan-pricing";

// Pricing (spec: Billing rules). Every tier costs the same; tiers only report volume.

/** Micro-cents per billable token (the catalogue's standard rate). */
export const UNIT_PRICE_MICRO_CENTS = STANDARD_UNIT_PRICE_MICRO_CENTS;
export const MICRO_CENTS_PER_EURO = 100_000_000;

export type Tier = "t1" | "t2" | "t3";

const T2_FROM = 1_000_000_000;
const T3_FROM = 10_000_000_000;

/** Tier in force for an account that has billed `monthTokens` since the start of the UTC month. */
export function tierFor(monthTokens: number): Tier {
  if (monthTokens >= T3_FROM) return "t3";
  if (monthTokens >= T2_FROM) return "t2";
  return "t1";
}

/** Token count where the next tier starts, or null in the top tier. */
export function nextTierAt(monthTokens: number): number | null {
  if (monthTokens < T2_FROM) return T2_FROM;
  if (monthTokens < T3_FROM) return T3_FROM;
  return null;
}

/** Integer micro-cents as a euro decimal string with 8 decimals, e.g. 10000000000 → "100.00000000". */
export function euroString(microCents: number): string {
  const neg = microCents < 0;
  const abs = BigInt(Math.abs(microCents));
  const whole = abs / 100_000_000n;
  const frac = (abs % 100_000_000n).toString().padStart(8, "0");
  return `${neg ? "-" : ""}${whole}.${frac}`;
}
