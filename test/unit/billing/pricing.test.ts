import { describe, expect, it } from "vitest";
import { euroString, nextTierAt, tierFor } from "../../../schema/pricing";

describe("tiers ('t1 first 1 billion, t2 from 1 billion to 10 billion, t3 above 10 billion')", () => {
  it.each([
    [0, "t1", 1_000_000_000],
    [999_999_999, "t1", 1_000_000_000],
    [1_000_000_000, "t2", 10_000_000_000],
    [9_999_999_999, "t2", 10_000_000_000],
    [10_000_000_000, "t3", null],
  ] as const)("%i month-to-date tokens → %s, next tier at %s", (tokens, tier, next) => {
    expect(tierFor(tokens)).toBe(tier);
    expect(nextTierAt(tokens)).toBe(next);
  });
});

describe("euro string ('1 EUR = 100,000,000 micro-cents')", () => {
  it.each([
    [0, "0.00000000"],
    [1, "0.00000001"],
    [10_000_000_000, "100.00000000"],
    [123_456_789, "1.23456789"],
    [Number.MAX_SAFE_INTEGER, "90071992.54740991"],
  ])("%i → %s", (mc, eur) => expect(euroString(mc)).toBe(eur));
});
