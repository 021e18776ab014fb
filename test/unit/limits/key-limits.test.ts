import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../../../workers/limits/headers";
import { limitsFor, resetSeconds } from "../../../workers/limits/key-limits";

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
