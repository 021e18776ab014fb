import { describe, expect, it } from "vitest";
import { CODE_DIGITS, codeHmac, generateCode } from "../../../workers/accounts/codes";

describe("sign-in codes", () => {
  it("are 8 digits", () => {
    expect(CODE_DIGITS).toBeGreaterThanOrEqual(8);
    for (let i = 0; i < 200; i++) expect(generateCode()).toMatch(/^\d{8}$/);
  });

  it("draw again above the largest multiple of 10^8 below 2^32 (rejection sampling: no modulo bias)", () => {
    const draws = [4_294_967_295, 4_200_000_000, 4_199_999_999];
    const random = (buf: Uint32Array) => {
      buf[0] = draws.shift()!;
      return buf;
    };
    expect(generateCode(random)).toBe("99999999"); // 4,199,999,999 % 10^8; the first two were redrawn
    expect(draws).toHaveLength(0);
  });

  it("are roughly uniform per digit", () => {
    const counts = new Array(10).fill(0);
    for (let i = 0; i < 5000; i++) for (const d of generateCode()) counts[Number(d)]++;
    for (const c of counts) expect(Math.abs(c / 40_000 - 0.1)).toBeLessThan(0.01);
  });

  it("are stored as an HMAC bound to the address and the secret", async () => {
    const a = await codeHmac("secret-1", "a@example.com", "12345678");
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(await codeHmac("secret-1", "b@example.com", "12345678")).not.toBe(a);
    expect(await codeHmac("secret-2", "a@example.com", "12345678")).not.toBe(a);
  });
});
