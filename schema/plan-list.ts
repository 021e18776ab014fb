import { z } from "zod";

/**
 * Wire shape of GET /v1/plans (spec: Plan list, Plan, PlanPrice, Top-up pack), built by `planList` in
 * schema/plans.ts; for the OpenAPI document of the route.
 */

const minor = (description: string) => z.number().int().min(1).describe(description);

/** Currency code → amount; EUR, USD, GBP and INR always present, more may appear. */
const byCurrency = <T extends z.ZodType>(value: T) =>
  z.object({ EUR: value, USD: value, GBP: value, INR: value }).catchall(value);

/** A plan's price in one currency, minor units excluding VAT. */
export const PlanPrice = z.object({
  price_cents: minor("Monthly price in the currency's minor unit, excluding VAT."),
  reset_price_cents: minor("Price of refilling the current week's allowance (25 % of the monthly price)."),
});
export type PlanPrice = z.infer<typeof PlanPrice>;

/** One plan. */
export const PlanObject = z.object({
  id: z.string().describe("`base`, `hot` or `fierce`; new plans may appear."),
  object: z.literal("plan"),
  name: z.string().describe("Display name."),
  price_cents: minor("Monthly price in euro cents, excluding VAT."),
  currency: z.literal("EUR"),
  interval: z.literal("month"),
  included_multiple: z.number().int().min(1).describe("Included usage as a multiple of the price."),
  week_allowance_tokens: z
    .number()
    .int()
    .min(0)
    .describe("Input tokens per 7-day week (int64); no roll-over."),
  effective_unit_price_micro_cents: z
    .number()
    .int()
    .min(0)
    .describe("Price ÷ monthly included tokens, rounded up."),
  reset_price_cents: minor("Refill of the current week's allowance, euro cents, excluding VAT."),
  seats_total: z.number().int().min(0).nullable().describe("Founding-round seats; null: no seat limit."),
  seats_taken: z.number().int().min(0),
  seats_left: z
    .number()
    .int()
    .min(0)
    .nullable()
    .describe("Total minus taken, never below 0; null: no limit."),
  available: z.boolean().describe("Whether a new subscription can start now."),
  prices: byCurrency(PlanPrice),
});
export type PlanObject = z.infer<typeof PlanObject>;

/** A top-up pack. */
export const TopUpPack = z.object({
  credit_cents: minor("EUR credit in euro cents, whatever currency is paid."),
  prices: byCurrency(minor("Price in the currency's minor unit, excluding VAT.")),
});
export type TopUpPack = z.infer<typeof TopUpPack>;

/** GET /v1/plans, 200. */
export const PlanList = z.object({
  object: z.literal("list"),
  standard_unit_price_micro_cents: z.number().int().describe("Pay-as-you-go rate per input token."),
  data: z.array(PlanObject).describe("Cheapest first."),
  currencies: z.array(z.string()).describe("Checkout currencies, EUR first."),
  top_up_packs: z.array(TopUpPack).describe("Smallest first."),
});
export type PlanList = z.infer<typeof PlanList>;
