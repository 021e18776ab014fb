import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CURRENCIES, currencyForCountry } from "../../../schema/currencies";
import { PlanList } from "../../../schema/plan-list";
import {
  effectiveUnitPriceMicroCents,
  localPriceMinor,
  MICRO_CENTS_PER_CENT,
  monthlyIncludedTokens,
  resetPriceMinor,
  STANDARD_UNIT_PRICE_MICRO_CENTS,
  weekAllowanceTokens,
} from "../../../schema/plan-pricing";
import { PLANS, planList, seatState, TOP_UP_PACKS } from "../../../schema/plans";
import { UNIT_PRICE_MICRO_CENTS } from "../../../schema/pricing";

const price = fc.integer({ min: 1, max: 10_000_000 }); // up to EUR 100,000 a month
const multiple = fc.integer({ min: 1, max: 100 });
const B = BigInt;

describe("plan arithmetic (property-based)", () => {
  it("monthly included tokens are worth exactly price × multiple at the standard rate", () => {
    fc.assert(
      fc.property(price, multiple, (p, m) => {
        const tokens = monthlyIncludedTokens(p, m);
        expect(Number.isSafeInteger(tokens)).toBe(true);
        expect(B(tokens) * B(STANDARD_UNIT_PRICE_MICRO_CENTS)).toBe(B(p) * B(m) * B(MICRO_CENTS_PER_CENT));
      }),
    );
  });

  it("a week is the smallest whole token count ≥ month × 7 × 12 / 365.2425", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 50 }), (month) => {
        const w = B(weekAllowanceTokens(month));
        const exact = B(month) * 840_000n; // compared against w × 3,652,425
        expect(w * 3_652_425n >= exact).toBe(true);
        expect((w - 1n) * 3_652_425n < exact).toBe(true);
      }),
    );
  });

  it("a year of weeks never includes less than 12 months, and at most one token a week more", () => {
    fc.assert(
      fc.property(price, multiple, (p, m) => {
        const month = B(monthlyIncludedTokens(p, m));
        const week = B(weekAllowanceTokens(Number(month)));
        // 365.2425 / 7 weeks a year: week × 3,652,425 / 70,000 versus 12 × month.
        const yearOfWeeks = week * 3_652_425n;
        expect(yearOfWeeks >= 12n * month * 70_000n).toBe(true);
        expect(yearOfWeeks - 12n * month * 70_000n < 3_652_425n).toBe(true);
      }),
    );
  });

  it("effective unit price = ceil(5 / multiple): never below the real price, at least 1", () => {
    fc.assert(
      fc.property(price, multiple, (p, m) => {
        const month = monthlyIncludedTokens(p, m);
        const e = effectiveUnitPriceMicroCents(p, month);
        expect(e).toBe(Math.ceil(STANDARD_UNIT_PRICE_MICRO_CENTS / m));
        const paid = B(p) * B(MICRO_CENTS_PER_CENT);
        expect(B(e) * B(month) >= paid).toBe(true);
        expect(B(e - 1) * B(month) < paid).toBe(true);
        expect(e).toBeGreaterThanOrEqual(1);
      }),
    );
    expect(
      [1, 2, 3, 4, 5, 6].map((m) => effectiveUnitPriceMicroCents(100, monthlyIncludedTokens(100, m))),
    ).toEqual([5, 3, 2, 2, 1, 1]);
  });

  it("reset price is 25 % rounded half up to a whole minor unit, ≥ 1 from a price of 2", () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 1_000_000_000 }), (p) => {
        const r = resetPriceMinor(p);
        expect(r).toBeGreaterThanOrEqual(1);
        expect(Math.abs(4 * r - p)).toBeLessThanOrEqual(2);
        expect(r).toBe(Math.floor(p / 4 + 0.5));
      }),
    );
    expect([2, 6, 10, 1900, 1901, 1902, 1903].map(resetPriceMinor)).toEqual([1, 2, 3, 475, 475, 476, 476]);
  });

  it("a local price is the EUR amount at the reference rate rounded up to a whole unit", () => {
    fc.assert(
      fc.property(
        price,
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (p, num, den) => {
          const local = localPriceMinor(p, { num, den });
          expect(local % 100).toBe(0);
          expect(B(local) * B(den) >= B(p) * B(num)).toBe(true);
          expect(B(local - 100) * B(den) < B(p) * B(num)).toBe(true);
        },
      ),
    );
  });

  it("refuses non-integers and non-positive inputs", () => {
    expect(() => monthlyIncludedTokens(19.5, 2)).toThrow(RangeError);
    expect(() => weekAllowanceTokens(0)).toThrow(RangeError);
    expect(() => resetPriceMinor(-4)).toThrow(RangeError);
  });
});

describe("the catalogue", () => {
  it("base, hot, fierce, cheapest first in every currency, with the numbers docs/decisions.md states", () => {
    expect(PLANS.map((p) => p.id)).toEqual(["base", "hot", "fierce"]);
    for (const c of CURRENCIES) {
      const prices = PLANS.map((p) => p.prices[c].price_cents);
      expect([...prices].sort((a, b) => a - b)).toEqual(prices);
    }
    expect(
      PLANS.map((p) => [
        p.price_cents,
        p.included_multiple,
        p.monthly_included_tokens,
        p.week_allowance_tokens,
        p.effective_unit_price_micro_cents,
        p.reset_price_cents,
        p.seats_total,
      ]),
    ).toEqual([
      [1_900, 2, 760_000_000, 174_787_984, 3, 475, 1_000],
      [4_900, 3, 2_940_000_000, 676_153_515, 2, 1_225, 300],
      [14_900, 5, 14_900_000_000, 3_426_764_410, 1, 3_725, 100],
    ]);
  });

  it("prices: every currency present, integers ≥ 1, EUR repeating the plan's own, resets 25 %", () => {
    for (const p of PLANS) {
      expect(Object.keys(p.prices)).toEqual(["EUR", "USD", "GBP", "INR"]);
      expect(p.prices.EUR).toEqual({ price_cents: p.price_cents, reset_price_cents: p.reset_price_cents });
      for (const c of CURRENCIES) {
        const { price_cents, reset_price_cents } = p.prices[c];
        expect(Number.isSafeInteger(price_cents) && price_cents >= 1).toBe(true);
        expect(reset_price_cents).toBe(resetPriceMinor(price_cents));
      }
    }
    expect(PLANS.map((p) => p.prices.USD.price_cents)).toEqual([2_100, 5_400, 16_400]);
    expect(PLANS.map((p) => p.prices.INR.reset_price_cents)).toEqual([47_500, 122_500, 372_500]);
  });

  it("top-up packs: smallest first, valid checkout amounts, EUR price equal to the credit", () => {
    const credits = TOP_UP_PACKS.map((t) => t.credit_cents);
    expect([...credits].sort((a, b) => a - b)).toEqual(credits);
    for (const t of TOP_UP_PACKS) {
      expect(t.credit_cents).toBeGreaterThanOrEqual(1_000);
      expect(t.credit_cents).toBeLessThanOrEqual(250_000);
      expect(t.prices.EUR).toBe(t.credit_cents);
      expect(Object.keys(t.prices)).toEqual(["EUR", "USD", "GBP", "INR"]);
    }
  });

  it("the catalogue's standard price is the ledger's", () => {
    expect(STANDARD_UNIT_PRICE_MICRO_CENTS).toBe(UNIT_PRICE_MICRO_CENTS);
  });
});

describe("seats and the plan list", () => {
  it("seats_left = total − taken, never below 0; null without a limit; available while one is left", () => {
    fc.assert(
      fc.property(fc.option(fc.nat(10_000), { nil: null }), fc.nat(20_000), (total, taken) => {
        const s = seatState(total, taken);
        expect(s.seats_left).toBe(total === null ? null : Math.max(0, total - taken));
        expect(s.available).toBe(total === null || taken < total);
      }),
    );
  });

  it("the body has the spec's fields and the seat counts it was given", () => {
    const body = planList({ hot: 300, fierce: 7 });
    expect(PlanList.parse(body)).toEqual(body); // the wire schema, no field more or less
    expect(Object.keys(body)).toEqual([
      "object",
      "standard_unit_price_micro_cents",
      "data",
      "currencies",
      "top_up_packs",
    ]);
    expect(body.currencies).toEqual(["EUR", "USD", "GBP", "INR"]);
    expect(body.standard_unit_price_micro_cents).toBe(5);
    expect(Object.keys(body.data[0]!).sort()).toEqual(
      [
        "id",
        "object",
        "name",
        "price_cents",
        "currency",
        "interval",
        "included_multiple",
        "week_allowance_tokens",
        "effective_unit_price_micro_cents",
        "reset_price_cents",
        "seats_total",
        "seats_taken",
        "seats_left",
        "available",
        "prices",
      ].sort(),
    );
    expect(body.data.map((p) => [p.id, p.seats_taken, p.seats_left, p.available])).toEqual([
      ["base", 0, 1_000, true],
      ["hot", 300, 0, false],
      ["fierce", 7, 93, true],
    ]);
    expect(
      body.data.every((p) => p.object === "plan" && p.currency === "EUR" && p.interval === "month"),
    ).toBe(true);
  });
});

describe("checkout currency by region", () => {
  it("India INR, United Kingdom GBP, EU/EEA/Switzerland EUR, everyone else USD", () => {
    const cases: Array<[string | null, string]> = [
      ["IN", "INR"],
      ["gb", "GBP"],
      ["DE", "EUR"],
      ["FR", "EUR"],
      ["RE", "EUR"],
      ["NO", "EUR"],
      ["IS", "EUR"],
      ["LI", "EUR"],
      ["CH", "EUR"],
      ["US", "USD"],
      ["JE", "USD"],
      ["MC", "USD"],
      ["XX", "USD"],
      [null, "USD"],
    ];
    expect(cases.map(([c]) => currencyForCountry(c))).toEqual(cases.map(([, cur]) => cur));
  });
});
