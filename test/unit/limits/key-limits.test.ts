import { describe, expect, it } from "vitest";
import { rateLimitHeaders } from "../../../workers/limits/headers";
import { limitsFor, waitSeconds } from "../../../workers/limits/key-limits";

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
  it("waits and resets are whole seconds from 1 to 60 (never 0, never past the window)", () => {
    expect(waitSeconds(0)).toBe(1);
    expect(waitSeconds(1)).toBe(1);
    expect(waitSeconds(1_001)).toBe(2);
    expect(waitSeconds(59_500)).toBe(60);
    expect(waitSeconds(120_000)).toBe(60);
  });
});
