import { existsSync, readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { loadVocab, merge, rankOf } from "../../../schema/tokenizer/bpe";
import { SVC1_META } from "../../../schema/tokenizer/data/svc1-vocab";
import { countTokens, decode, encode } from "../../../schema/tokenizer/index";
// @ts-expect-error plain .mjs without types
import { DEFAULT_MODEL, defaultModelPath } from "../../../scripts/model-pull.mjs";

// Vectors read from node-llama-cpp's model.tokenize(text) (special tokens off) on the default GGUF.
const VECTORS: [string, number[]][] = [
  [
    "Hello world <|im_start|> 12345 🙂",
    [19556, 905, 2067, 108, 306, 79, 3738, 108, 46, 216, 33, 34, 35, 36, 37, 47526],
  ],
  ["", []],
];

/** Textbook BPE: repeatedly merge the lowest-rank adjacent pair, leftmost first. */
function naiveMerge(ids: number[]): number[] {
  const v = loadVocab();
  const syms = [...ids];
  for (;;) {
    let best = -1;
    let at = -1;
    for (let i = 0; i + 1 < syms.length; i++) {
      const r = rankOf(v, syms[i]!, syms[i + 1]!);
      if (r >= 0 && (best < 0 || r < best)) [best, at] = [r, i];
    }
    if (at < 0) return syms;
    syms.splice(at, 2, v.mergeResultBase + best);
  }
}

describe("svc-1 tokenizer (spec: tokens are counted with the pinned tokenizer of the model family)", () => {
  it.each(VECTORS)("encodes %j exactly as llama.cpp", (text, ids) => {
    expect(encode(text)).toEqual(ids);
    expect(countTokens(text)).toBe(ids.length);
  });

  it("countTokens(text, stopAbove) stops once the count exceeds the limit (cheap over-limit check)", () => {
    const text = "hello world foo bar";
    expect(countTokens(text)).toBe(4);
    expect(countTokens(text, 1)).toBe(2);
    expect(countTokens(text, 4)).toBe(4);
    expect(countTokens("word ".repeat(100_000), 16_384)).toBe(16_385);
  });

  it("maps lone surrogates to U+FFFD as V8 does when passing strings to llama.cpp", () => {
    expect(encode("a\ud800b")).toEqual([81, 24211, 82]);
    expect(encode("x\ud83d")).toEqual([104, 24211]);
  });

  it("treats <|im_start|> in user text as plain text (special tokens off)", () => {
    expect(encode("<|im_start|>")).not.toContain(1);
    expect(decode(encode("<|im_start|>user"))).toBe("<|im_start|>user");
  });

  it("countTokens equals encode().length and decode inverts encode for any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        const ids = encode(text);
        expect(countTokens(text)).toBe(ids.length);
        // llama.cpp drops bytes the vocabulary lacks (e.g. U+0004): decode then differs, so skip those.
        if (!/[\u0004\u0006\u0013\u0014\u0016\u001d]|[\u{40000}-\u{bffff}]/u.test(text))
          expect(decode(ids)).toBe(text);
      }),
      { numRuns: 500, seed: 7 },
    );
  }, 30_000);

  it("merges long pieces (heap path) exactly like textbook BPE", () => {
    const v = loadVocab();
    const alphabet = fc.constantFrom(..."aaabcdeeinorst ĠéΩ日本".split(""));
    fc.assert(
      fc.property(fc.array(alphabet, { minLength: 49, maxLength: 400 }), (chars) => {
        const bytes = [...new TextEncoder().encode(chars.join(""))];
        const ids = bytes.map((b) => v.byteIds[b]!);
        const syms = Int32Array.from(ids);
        const n = merge(v, syms, syms.length);
        expect([...syms.subarray(0, n)]).toEqual(naiveMerge(ids));
      }),
      { numRuns: 200, seed: 11 },
    );
  }, 30_000);

  it("handles a 64 KiB single pre-token (one long letter run) in linear-ish time", () => {
    const text = "ab".repeat(32 * 1024);
    const t0 = performance.now();
    const n = countTokens(text);
    expect(n).toBeGreaterThan(0);
    expect(performance.now() - t0).toBeLessThan(5_000);
    expect(decode(encode(text))).toBe(text);
  }, 30_000);

  it("pins the data to the default GGUF (identity is detectable)", () => {
    expect(SVC1_META.gguf.sha256).toBe(DEFAULT_MODEL.sha256);
    expect(SVC1_META.tokenCount).toBe(49_152);
    expect(SVC1_META.mergeCount).toBe(48_900);
  });

  it.skipIf(!existsSync(defaultModelPath()))(
    "committed data equals a fresh derivation from the GGUF and llama.cpp's unicode tables",
    async () => {
      const { DATA_MODULE_PATH, deriveTokenizerData, renderDataModule } = await import(
        "../../../scripts/build-tokenizer"
      );
      const fresh = renderDataModule(await deriveTokenizerData(defaultModelPath()));
      expect(fresh === readFileSync(DATA_MODULE_PATH, "utf8")).toBe(true);
    },
    120_000,
  );
});
