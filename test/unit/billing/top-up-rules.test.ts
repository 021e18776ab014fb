import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { TOP_UP_PACKS } from "../../../schema/plans";
import {
  creditMicroCents,
  inFirstDays,
  NEW_ACCOUNT_CAP_CENTS,
  TOP_UP_MAX_CENTS,
  TOP_UP_MIN_CENTS,
  topUpPrice,
  withinNewAccountCap,
} from "../../../workers/billing/top-up-rules";

describe("top-up rules", () => {
  it("EUR and not-yet-fixed accounts pay any amount in EUR, credited as the same net EUR amount", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: TOP_UP_MIN_CENTS, max: TOP_UP_MAX_CENTS }),
        fc.constantFrom(null, "EUR" as const),
        (cents, cur) => {
          expect(topUpPrice(cur, cents)).toEqual({
            credit_cents: cents,
            currency: "EUR",
            price_minor: cents,
          });
          expect(creditMicroCents(cents)).toBe(cents * 1_000_000);
          expect(Number.isSafeInteger(creditMicroCents(cents))).toBe(true);
        },
      ),
    );
  });

  it("other currencies buy packs only: the pack's price in that currency, the pack's EUR credit", () => {
    for (const cur of ["USD", "GBP", "INR"] as const) {
      for (const pack of TOP_UP_PACKS)
        expect(topUpPrice(cur, pack.credit_cents)).toEqual({
          credit_cents: pack.credit_cents,
          currency: cur,
          price_minor: pack.prices[cur],
        });
      expect(topUpPrice(cur, 3_000)).toBeNull();
    }
    expect(topUpPrice("USD", 2_500)?.price_minor).toBe(2_800);
  });

  it("the cap: EUR 500 in total during the first 30 days", () => {
    expect(withinNewAccountCap(40_000, 10_000)).toBe(true);
    expect(withinNewAccountCap(40_001, 10_000)).toBe(false);
    expect(NEW_ACCOUNT_CAP_CENTS).toBe(50_000);
    const created = Date.UTC(2026, 0, 1);
    expect(inFirstDays(created, created + 30 * 86_400_000 - 1)).toBe(true);
    expect(inFirstDays(created, created + 30 * 86_400_000)).toBe(false);
  });
});
