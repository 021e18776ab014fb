import { describe, expect, it } from "vitest";
import { limitsFor, rateLimitHeaders, resetSeconds } from "../../workers/decide/rate-limits";
import { dayOf, monthOf, secondsToUtcMidnight, weekOf } from "../../workers/ledger/periods";
import { euroString, nextTierAt, tierFor } from "../../workers/ledger/tiers";

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

describe("UTC periods", () => {
  it("ISO week starts Monday 00:00 UTC", () => {
    expect(weekOf(Date.UTC(2026, 10, 22, 23, 59))).toBe("2026-11-16"); // Sunday
    expect(weekOf(Date.UTC(2026, 10, 23, 0, 0))).toBe("2026-11-23"); // Monday
    expect(weekOf(Date.UTC(2027, 0, 1))).toBe("2026-12-28"); // across the year
  });
  it("month and day are UTC calendar ones", () => {
    expect(monthOf(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12");
    expect(dayOf(Date.UTC(2026, 11, 31, 23, 59))).toBe("2026-12-31");
  });
  it("'test_daily_quota: retry-after is the time until 00:00 UTC'", () => {
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 21, 23, 59, 30))).toBe(30);
    expect(secondsToUtcMidnight(Date.UTC(2026, 10, 21, 0, 0, 0))).toBe(86_400);
  });
});

describe("limits ('a key may carry lower limits of its own, never above the account caps')", () => {
  const base = { keyId: "k", accountId: "a" };
  it.each([
    ["live defaults", { ...base, mode: "live" as const }, { rpm: 300, tpm: 300_000 }],
    ["test defaults", { ...base, mode: "test" as const }, { rpm: 30, tpm: 40_000 }],
    [
      "lower key limit",
      { ...base, mode: "live" as const, keyLimits: { rpm: 10 } },
      { rpm: 10, tpm: 300_000 },
    ],
    [
      "key above account cap is clamped",
      { ...base, mode: "live" as const, keyLimits: { rpm: 1000, tpm: 5 }, accountLimits: { rpm: 50 } },
      { rpm: 50, tpm: 5 },
    ],
  ])("%s", (_n, subject, key) => expect(limitsFor(subject).key).toEqual(key));

  it("headers follow the spec's syntax", () => {
    expect(
      rateLimitHeaders({
        policy: { rpm: 300, tpm: 300_000 },
        remaining: { rpm: 299, tpm: 299_956 },
        resetSeconds: 17,
      }),
    ).toEqual({
      "ratelimit-policy": '"rpm";q=300;w=60, "tpm";q=300000;w=60',
      ratelimit: '"rpm";r=299;t=17, "tpm";r=299956;t=17',
    });
  });
  it("reset is 1..60 seconds", () => {
    expect(resetSeconds(60_000 * 5)).toBe(60);
    expect(resetSeconds(60_000 * 5 + 59_500)).toBe(1);
  });
});
