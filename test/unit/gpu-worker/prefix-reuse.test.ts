import { describe, expect, it } from "vitest";
import { prefixReuseMeasuredOn, reusableTokens } from "../../../gpu-worker/src/prefix-reuse";

const BATCH = 512;
/** A prefix of `n` tokens whose first `shared` equal the held one's (token ids are positions, the rest offset). */
const prefixes = (heldLength: number, newLength: number, shared: number) => {
  const held = Array.from({ length: heldLength }, (_, i) => (i < shared ? i : 100_000 + i));
  const next = Array.from({ length: newLength }, (_, i) => (i < shared ? i : 200_000 + i));
  return { held, next };
};
const keep = (heldLength: number, newLength: number, shared: number) => {
  const { held, next } = prefixes(heldLength, newLength, shared);
  return reusableTokens(held, next, BATCH);
};

describe("prefix reuse keeps only what evaluates to the same bits (measured rules, prefix-reuse.ts)", () => {
  it("nothing held, or nothing in common: nothing kept", () => {
    expect(reusableTokens([], [1, 2, 3], BATCH)).toBe(0);
    expect(keep(57, 57, 0)).toBe(0);
  });

  it("short prefixes (one decode of < 64 rows each): the common head down to a multiple of 4 rows", () => {
    expect(keep(57, 57, 24)).toBe(24);
    expect(keep(57, 60, 23)).toBe(20);
    // The same short prefix again: all but its trailing 1–3 rows, which the held decode took one by one.
    expect(keep(57, 57, 57)).toBe(56);
  });

  it("a held short decode is not reused under a new decode of ≥ 64 rows, nor the other way round (attention kernel)", () => {
    expect(keep(40, 200, 30)).toBe(0);
    expect(keep(200, 40, 30)).toBe(0);
    expect(keep(63, 64, 62)).toBe(0);
  });

  it("long prefixes: at least 64 rows are left to evaluate in the chunk, so its kernel stays the tiled one", () => {
    expect(keep(200, 200, 30)).toBe(28);
    expect(keep(200, 200, 200)).toBe(136);
    expect(keep(130, 70, 69)).toBe(4);
    expect(keep(100, 100, 100)).toBe(36);
  });

  it("whole batches both evaluated alike are kept; the chunk where the prefixes part follows the same rules", () => {
    expect(keep(700, 700, 600)).toBe(600);
    expect(keep(700, 600, 530)).toBe(528);
    // The new prefix's last chunk has 18 rows (< 64) where the held one had 188: only the whole batch is kept.
    expect(keep(700, 530, 529)).toBe(512);
    expect(keep(1024, 1024, 1024)).toBe(1024);
  });

  it("never more than the held prefix, whatever the new prefix continues with", () => {
    expect(reusableTokens([1, 2, 3, 4], [1, 2, 3, 4, 5, 6, 7, 8, 10], BATCH)).toBe(4);
  });

  it("is on only where the rules were measured: the pinned haswell CPU variant", () => {
    expect(prefixReuseMeasuredOn({ backend: "cpu", device: "haswell" })).toBe(true);
    expect(prefixReuseMeasuredOn({ backend: "cpu", device: "sapphirerapids" })).toBe(false);
    expect(prefixReuseMeasuredOn({ backend: "cuda", device: "nvidia-l4" })).toBe(false);
  });
});
