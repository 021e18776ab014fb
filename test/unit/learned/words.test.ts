import { describe, expect, it } from "vitest";
import { fnv1a, MAX_TOKENS, tokens, WORDS_PROCEDURE, wordCounts } from "../../../schema/learned/features";
import { fitWordsModel } from "../../../schema/learned/fit";
import {
  applyWordsModel,
  readWordsModel,
  type WordsModel,
  wordsModelJson,
} from "../../../schema/learned/model";
import { mailLike } from "./synthetic";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("the features are one written procedure (issue 49: 'Unicode normalisation, case, tokenising: say which')", () => {
  it("FNV-1a 32-bit over UTF-8 gives the reference vectors", () => {
    expect(fnv1a(bytes("")).toString(16)).toBe("811c9dc5");
    expect(fnv1a(bytes("a")).toString(16)).toBe("e40c292c");
    expect(fnv1a(bytes("foobar")).toString(16)).toBe("bf9cf968");
  });

  it("NFC, then lower case, then runs of letters and digits: composed and decomposed text read alike", () => {
    expect(tokens("Héllo, HE\u0301LLO wörld! 42x — e-mail")).toEqual([
      "héllo",
      "héllo",
      "wörld",
      "42x",
      "e",
      "mail",
    ]);
    expect(wordCounts("Cafe\u0301 OK")).toEqual(wordCounts("café ok"));
  });

  it("words and word pairs counted per bucket, buckets ascending (pinned)", () => {
    const w = wordCounts("Win a FREE prize: free prize now");
    expect([...w.buckets]).toEqual([
      10540, 104703, 105207, 106799, 140506, 149707, 192083, 230894, 248665, 257755,
    ]);
    expect([...w.counts]).toEqual([1, 1, 1, 2, 1, 2, 1, 1, 1, 2]);
  });

  it(`reads the first ${MAX_TOKENS} tokens of a state only`, () => {
    const long = Array.from({ length: MAX_TOKENS + 50 }, (_, i) => `w${i}`).join(" ");
    expect(tokens(long)).toHaveLength(MAX_TOKENS);
  });
});

describe("applying a model is exact (issue 49: 'a replay … answers byte-identical bytes')", () => {
  const w = wordCounts("Win a FREE prize: free prize now");
  const model: WordsModel = {
    procedure: WORDS_PROCEDURE,
    vocab: [...w.buckets].slice(0, 4),
    idf: [1.5, 2.25, 1, 3.25],
    scale: 0.8,
    bias: [0.3, 0],
    weights: [[1.5, -2, 0.25, 3]],
    l2: 0.1,
  };

  it("fixed model, answer and state → fixed bytes, the same every time", () => {
    const once = JSON.stringify(applyWordsModel(model, [0.4, 0.6], w));
    expect(once).toBe("[0.9097863652486096,0.09021363475139048]");
    expect(
      JSON.stringify(
        applyWordsModel(
          readWordsModel(wordsModelJson(model)),
          [0.4, 0.6],
          wordCounts("Win a FREE prize: free prize now"),
        ),
      ),
    ).toBe(once);
  });

  it("a state with none of the model's words is answered by its stack alone (scale and bias on the log-probabilities)", () => {
    const p = applyWordsModel(model, [0.4, 0.6], wordCounts("nothing here"));
    const z = 0.8 * Math.log(0.4) + 0.3 - 0.8 * Math.log(0.6);
    expect(p[0]).toBeCloseTo(1 / (1 + Math.exp(-z)), 15);
  });

  it("a model of another feature procedure is refused, not misread", () => {
    expect(() => applyWordsModel({ ...model, procedure: "other" }, [0.4, 0.6], w)).toThrow(/procedure/);
  });
});

describe("the fit is deterministic and capped (issue 49: 'a stated cap on a calibration's stored model')", () => {
  const items = mailLike(120, 11);

  it("the same labels give the same model, byte for byte", () => {
    expect(wordsModelJson(fitWordsModel("check", 2, items, 0.1))).toBe(
      wordsModelJson(fitWordsModel("check", 2, items, 0.1)),
    );
  });

  it("a model over the cap keeps its largest weights and fits under it", () => {
    const full = fitWordsModel("check", 2, items, 0.1);
    const capped = fitWordsModel("check", 2, items, 0.1, 1500);
    expect(wordsModelJson(full).length).toBeGreaterThan(1500);
    expect(wordsModelJson(capped).length).toBeLessThanOrEqual(1500);
    expect(capped.vocab.length).toBeLessThan(full.vocab.length);
    // The signal words (the largest weights) are what is kept.
    const signal = wordCounts("prize").buckets[0] as number;
    expect(capped.vocab).toContain(signal);
  });
});
