import { createHash } from "node:crypto";
import { crc32 as zlibCrc32 } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { API_KEY_PATTERN, checkKeyShape, crc32, generateApiKey, hashApiKey } from "../../../schema/api-key";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** Independent checksum: zlib's CRC-32, base62 via BigInt division. */
function referenceChecksum(body: string): string {
  let v = BigInt(zlibCrc32(Buffer.from(body, "utf8")));
  let out = "";
  while (v > 0n) {
    out = ALPHABET[Number(v % 62n)] + out;
    v /= 62n;
  }
  return out.padStart(6, "0");
}

describe("API key checksum: CRC-32 (IEEE, as in zlib) over prefix + 34 random chars, base62, MSB first, padded to 6", () => {
  it.each([
    ["svc_live_", "0000000000000000000000000000000000"],
    ["svc_test_", "0000000000000000000000000000000000"],
    ["svc_live_", "AbCdEfGhIjKlMnOpQrStUvWxYz01234567"],
    ["svc_test_", "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"],
  ])("vector %s%s", (prefix, random) => {
    const key = prefix + random + referenceChecksum(prefix + random);
    expect(checkKeyShape(key)).toEqual({ mode: prefix === "svc_live_" ? "live" : "test" });
  });

  it("crc32 equals zlib on arbitrary bytes", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (b) => crc32(b) === zlibCrc32(Buffer.from(b))));
  });

  it("a small checksum is left-padded with 0", () => {
    // find a body whose checksum value is < 62^5 so padding is exercised
    let body = "";
    for (let i = 0; i < 100_000; i++) {
      const random = i.toString().padStart(34, "0");
      if (zlibCrc32(Buffer.from("svc_live_" + random)) < 62 ** 5) {
        body = "svc_live_" + random;
        break;
      }
    }
    expect(body).not.toBe("");
    const sum = referenceChecksum(body);
    expect(sum[0]).toBe("0");
    expect(checkKeyShape(body + sum)).toEqual({ mode: "live" });
  });
});

describe("generateApiKey: `svc_(live|test)_` + 34 random base62 + 6-char checksum", () => {
  it.each(["live", "test"] as const)(
    "%s keys have the shape, a valid checksum, sha256 hash and prefix",
    async (mode) => {
      for (let i = 0; i < 50; i++) {
        const { secret, hash, prefix } = await generateApiKey(mode);
        const m = API_KEY_PATTERN.exec(secret);
        expect(m?.[1]).toBe(mode);
        expect(m?.[3]).toBe(referenceChecksum(`svc_${mode}_${m?.[2]}`));
        expect(hash).toBe(createHash("sha256").update(secret).digest("hex"));
        expect(await hashApiKey(secret)).toBe(hash);
        expect(secret.startsWith(prefix)).toBe(true);
        expect(prefix).toMatch(new RegExp(`^svc_${mode}_[0-9A-Za-z]{4}$`));
      }
    },
  );

  it("random characters cover the whole alphabet roughly uniformly", async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const { secret } = await generateApiKey("test");
      for (const ch of secret.slice(9, 43)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect(counts.size).toBe(62);
    // 10,200 draws / 62 ≈ 164.5 each; a biased sampler or a missing char would fall far outside
    for (const n of counts.values()) expect(n).toBeGreaterThan(90);
  });
});

describe("checkKeyShape: shape + checksum only", () => {
  const good = (() => {
    const r = "Q".repeat(34);
    return `svc_live_${r}${referenceChecksum(`svc_live_${r}`)}`;
  })();
  it.each([
    ["empty", ""],
    ["wrong mode", good.replace("svc_live_", "svc_prod_")],
    ["mode swapped (checksum covers mode)", good.replace("svc_live_", "svc_test_")],
    ["one char mistyped", good.slice(0, 12) + (good[12] === "a" ? "b" : "a") + good.slice(13)],
    ["too short", good.slice(0, -1)],
    ["too long", good + "0"],
    ["non-base62 char", good.slice(0, 10) + "_" + good.slice(11)],
  ])("rejects %s", (_name, key) => expect(checkKeyShape(key)).toBeNull());
  it("accepts the good key", () => expect(checkKeyShape(good)).toEqual({ mode: "live" }));
});
