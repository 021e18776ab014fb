import { describe, expect, it } from "vitest";
import { auc } from "../../../schema/metrics";
import { chooseFit } from "../../../workers/calibrations/cross-validate";
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
