import { describe, expect, it } from "vitest";
import { hex, sha256Hex } from "../../../schema/hex";
import { pooledRandom } from "../../../schema/random-pool";

describe("hex and SHA-256 (one implementation for the Worker, the GPU worker and the tools)", () => {
  it("writes every byte as two lower-case digits, from an ArrayBuffer or a Uint8Array", () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    const expected = [...all].map((b) => b.toString(16).padStart(2, "0")).join("");
    expect(hex(all)).toBe(expected);
    expect(hex(all.buffer)).toBe(expected);
    expect(hex(new Uint8Array(0))).toBe("");
  });

  it("hashes a string's UTF-8 bytes and raw bytes alike (FIPS 180-2 vectors)", async () => {
    expect(await sha256Hex("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(await sha256Hex(new TextEncoder().encode("abc"))).toBe(await sha256Hex("abc"));
    expect(await sha256Hex("é")).toBe(await sha256Hex(Uint8Array.of(0xc3, 0xa9)));
  });
});

describe("pooledRandom (a ULID's random characters, one getRandomValues call per 4 KiB)", () => {
  it("answers k / 256 in [0, 1), covering every byte value over a pool's worth of draws", () => {
    const seen = new Set<number>();
    for (let i = 0; i < 3 * 4096; i++) {
      const r = pooledRandom();
      expect(r).toBeGreaterThanOrEqual(0);
      expect(r).toBeLessThan(1);
      expect(Number.isInteger(r * 256)).toBe(true);
      seen.add(r * 256);
    }
    expect(seen.size).toBe(256);
  });
});
