/**
 * The plan catalogue (spec: Plan list; issue 14 item 5). The ONE source of truth for plans, their prices
 * and their founding-round seat totals: Postgres holds only who holds a seat (`seats_taken`).
 */
import { CURRENCIES, type Currency } from "./currencies";
import type { PlanList, PlanObject, PlanPrice, TopUpPack } from "./plan-list";
import {
  effectiveUnitPriceMicroCents,
  localPriceMinor,
  monthlyIncludedTokens,
  type ReferenceRate,
  resetPriceMinor,
  STANDARD_UNIT_PRICE_MICRO_CENTS,
  weekAllowanceTokens,
} from "./plan-pricing";

/** A plan id; new plans may appear within v1. */
export type PlanId = "base" | "hot" | "fierce";

/** What the catalogue states; everything else in a Plan is derived from it. */
export interface PlanDefinition {
  id: PlanId;
  name: string;
  /** Monthly price in euro cents, excluding VAT. */
  price_cents: number;
  included_multiple: number;
  /** Founding-round seats; null = no seat limit. */
  seats_total: number | null;
}

/** The plans, cheapest first. */
export const PLAN_DEFINITIONS: readonly PlanDefinition[] = [
  { id: "base", name: "Base", price_cents: 1_900, included_multiple: 2, seats_total: 1_000 },
  { id: "hot", name: "Hot", price_cents: 4_900, included_multiple: 3, seats_total: 300 },
  { id: "fierce", name: "Fierce", price_cents: 14_900, included_multiple: 5, seats_total: 100 },
];

/** 1 EUR in each checkout currency, for non-EUR prices (docs/decisions.md, "Plans": reviewed by hand). */
export const REFERENCE_RATES: Readonly<Record<Currency, ReferenceRate>> = {
  EUR: { num: 1, den: 1 },
  USD: { num: 110, den: 100 },
  GBP: { num: 87, den: 100 },
  INR: { num: 100, den: 1 },
};

/** Top-up credits sold as packs, in euro cents (each a valid `amount_cents` of the checkout route). */
export const TOP_UP_CREDITS_CENTS: readonly number[] = [1_000, 2_500, 10_000, 50_000];

/** A plan with everything the catalogue derives (no seat counts: those come from Postgres). */
export interface PlanTerms extends PlanDefinition {
  monthly_included_tokens: number;
  week_allowance_tokens: number;
  effective_unit_price_micro_cents: number;
  reset_price_cents: number;
  prices: Record<Currency, PlanPrice>;
}

/** A EUR amount in every checkout currency (EUR itself unchanged). */
export function pricesOf(eurCents: number): Record<Currency, number> {
  const out = {} as Record<Currency, number>;
  for (const c of CURRENCIES) out[c] = c === "EUR" ? eurCents : localPriceMinor(eurCents, REFERENCE_RATES[c]);
  return out;
}

/** A plan's derived terms. */
export function planTerms(def: PlanDefinition): PlanTerms {
  const monthly = monthlyIncludedTokens(def.price_cents, def.included_multiple);
  const local = pricesOf(def.price_cents);
  const prices = {} as Record<Currency, PlanPrice>;
  for (const c of CURRENCIES)
    prices[c] = { price_cents: local[c], reset_price_cents: resetPriceMinor(local[c]) };
  return {
    ...def,
    monthly_included_tokens: monthly,
    week_allowance_tokens: weekAllowanceTokens(monthly),
    effective_unit_price_micro_cents: effectiveUnitPriceMicroCents(def.price_cents, monthly),
    reset_price_cents: prices.EUR.reset_price_cents,
    prices,
  };
}

/** Every plan's terms, cheapest first. */
export const PLANS: readonly PlanTerms[] = PLAN_DEFINITIONS.map(planTerms);

/** The packs, smallest first. */
export const TOP_UP_PACKS: readonly TopUpPack[] = TOP_UP_CREDITS_CENTS.map((credit) => ({
  credit_cents: credit,
  prices: pricesOf(credit),
}));

/** The catalogue's plan with this id, if any. */
export function findPlan(id: string): PlanTerms | undefined {
  return PLANS.find((p) => p.id === id);
}

/** Seat state of a plan: total from the catalogue, taken from Postgres. */
export interface SeatState {
  seats_total: number | null;
  seats_taken: number;
  seats_left: number | null;
  available: boolean;
}

/** `seats_left` = total − taken, never below 0 (null without a limit); available while a seat is left. */
export function seatState(seatsTotal: number | null, seatsTaken: number): SeatState {
  const left = seatsTotal === null ? null : Math.max(0, seatsTotal - seatsTaken);
  return { seats_total: seatsTotal, seats_taken: seatsTaken, seats_left: left, available: left !== 0 };
}

/** The plan list body, given the seats held per plan id (a plan missing from the map has none taken). */
export function planList(seatsTaken: Readonly<Partial<Record<string, number>>>): PlanList {
  const data = PLANS.map(
    (p): PlanObject => ({
      id: p.id,
      object: "plan",
      name: p.name,
      price_cents: p.price_cents,
      currency: "EUR",
      interval: "month",
      included_multiple: p.included_multiple,
      week_allowance_tokens: p.week_allowance_tokens,
      effective_unit_price_micro_cents: p.effective_unit_price_micro_cents,
      reset_price_cents: p.reset_price_cents,
      ...seatState(p.seats_total, seatsTaken[p.id] ?? 0),
      prices: p.prices,
    }),
  );
  return {
    object: "list",
    standard_unit_price_micro_cents: STANDARD_UNIT_PRICE_MICRO_CENTS,
    data,
    currencies: [...CURRENCIES],
    top_up_packs: TOP_UP_PACKS.map((t) => ({ credit_cents: t.credit_cents, prices: { ...t.prices } })),
  };
}
