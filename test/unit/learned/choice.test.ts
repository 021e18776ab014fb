import { describe, expect, it } from "vitest";
import { wordCounts } from "../../../schema/learned/features";
import { auc } from "../../../schema/metrics";
import { Rng } from "../../../schema/rng";
import { chooseFit } from "../../../workers/calibrations/cross-validate";
import { calibrationEvidence, featuresJson } from "../../../workers/calibrations/metrics";
import { mailLike } from "./synthetic";

const aucOf = (dists: number[][], ys: number[]) =>
  auc(
    dists.map((p) => p[0] as number),
    ys.map((y) => y === 0),
  );

describe("the choice (issue 49: 'the one with the better held-out NLL wins')", () => {
  it("words carry the signal and the version's answer does not: the state-reading model wins by cross-validation", () => {
    const items = mailLike(120, 5);
    const fit = chooseFit("check", 2, items, { readState: true });
    expect(fit.method).toBe("state_words");
    expect(fit.tried.map((t) => t.method)).toEqual(["temperature_bias", "state_words"]);
    expect(fit.nllAfter).toBeLessThan((fit.tried[0] as { nll: number }).nll);
    expect(fit.nllAfter).toBeLessThan(fit.nllBefore);
    const ys = items.map((e) => e.y);
    expect(
      aucOf(
        items.map((e) => [...e.p]),
        ys,
      ),
    ).toBeLessThan(0.65);
    expect(aucOf(fit.crossValidated, ys)).toBeGreaterThan(0.9);
    expect(fit.model?.weights).toHaveLength(1);
    expect(fit.map.temperature).toBeCloseTo(1 / (fit.model?.scale as number), 12);
  });

  it("the version already knows and the words say nothing: a map wins (or nothing gains), never the words", () => {
    const items = mailLike(120, 9, true);
    const fit = chooseFit("check", 2, items, { readState: true });
    expect(fit.method).not.toBe("state_words");
    expect(fit.model).toBeUndefined();
  });

  it("not asked to read the state, or items without their states' words: the choice is today's, among maps only", () => {
    const items = mailLike(120, 5);
    expect(chooseFit("check", 2, items).tried.map((t) => t.method)).toEqual(["temperature_bias"]);
    const bare = items.map(({ p, y }) => ({ p, y }));
    expect(chooseFit("check", 2, bare, { readState: true }).tried.map((t) => t.method)).toEqual([
      "temperature_bias",
    ]);
  });

  it("the same labels choose the same model, byte for byte", () => {
    const items = mailLike(80, 3);
    expect(JSON.stringify(chooseFit("check", 2, items, { readState: true }))).toBe(
      JSON.stringify(chooseFit("check", 2, items, { readState: true })),
    );
  });
});

describe("pick and rate: a multinomial softmax, one weight row per option or level", () => {
  it("three levels told apart by their words, the version uniform: state_words wins with three rows", () => {
    const levels = [
      ["terrible", "awful", "broken"],
      ["okay", "fine", "average"],
      ["great", "superb", "love"],
    ];
    const filler = ["the", "it", "was", "product", "and", "delivery", "box"];
    const rng = new Rng(4);
    const items = Array.from({ length: 150 }, (_, i) => {
      const y = i % 3;
      const words = Array.from({ length: 8 }, () => rng.pick(filler));
      words.push(rng.pick(levels[y] as string[]));
      return { p: [1 / 3, 1 / 3, 1 / 3], y, words: wordCounts(words.join(" ")) };
    });
    const fit = chooseFit("rate", 3, items, { readState: true });
    expect(fit.method).toBe("state_words");
    expect(fit.model?.weights).toHaveLength(3);
    expect(fit.model?.bias).toHaveLength(3);
    expect(fit.nllAfter).toBeLessThan(fit.nllBefore - 0.3);
  });
});

describe("the evidence (issue 49: 'its cross-validated metrics before and after', per method)", () => {
  it("every method tried has its own cross-validated metrics on the same folds; `features` says what the model read", () => {
    const items = mailLike(120, 5);
    const fit = chooseFit("check", 2, items, { readState: true });
    const q = { id: "spam", type: "check", instructions: "Is it spam?", criteria: null } as const;
    const e = calibrationEvidence(q, fit, items);
    expect(e.methods.map((m) => m.method)).toEqual(["temperature_bias", "state_words"]);
    expect(e.methods[1]?.l2).toBe(fit.model?.l2);
    expect(e.methods[1]?.metrics).toEqual(e.after);
    expect(e.after.auc as number).toBeGreaterThan(e.methods[0]?.metrics.auc as number);
    const f = JSON.parse(featuresJson(fit) as string);
    expect(f).toMatchObject({ kind: "state_words", buckets: 262144, vocabulary: fit.model?.vocab.length });
    expect(f.model_bytes).toBeLessThanOrEqual(256 * 1024);
    expect(featuresJson(chooseFit("check", 2, items))).toBeNull();
  });
});
