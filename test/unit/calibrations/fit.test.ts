import { describe, expect, it } from "vitest";
import { applyMap } from "../../../schema/calibration-map";
import { Rng } from "../../../schema/rng";
import { chooseFit, crossValidated, FOLDS, meanNll } from "../../../workers/calibrations/cross-validate";
import { fitMap, type Labelled } from "../../../workers/calibrations/fit";

/** Checks whose true P(yes) is σ(2x) but whose version answers σ(x): under-confident by a temperature of 2. */
function underConfidentChecks(n: number, seed = 7): Labelled[] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => {
    const x = (rng.next() - 0.5) * 6;
    const truth = 1 / (1 + Math.exp(-2 * x));
    const shown = 1 / (1 + Math.exp(-x));
    return { p: [shown, 1 - shown], y: rng.next() < truth ? 0 : 1 };
  });
}

describe("the fit (issue 44: a temperature and a bias on the logit of P(yes), fitted by NLL)", () => {
  it("a known under-confident set comes back calibrated: temperature near 1/2, held-out NLL lower", () => {
    const train = underConfidentChecks(2000, 1);
    const test = underConfidentChecks(2000, 2);
    const map = fitMap("check", 2, train, "temperature_bias");
    expect(map.temperature).toBeGreaterThan(0.4);
    expect(map.temperature).toBeLessThan(0.6);
    expect(Math.abs(map.bias[0]!)).toBeLessThan(0.2);
    expect(map.bias[1]).toBe(0);
    const after = test.map((e) => applyMap(map, e.p));
    expect(meanNll(after, test)).toBeLessThan(
      meanNll(
        test.map((e) => e.p),
        test,
      ) - 0.02,
    );
  });

  it("never reorders a check's answers: P(yes) after is monotone in P(yes) before", () => {
    const items = underConfidentChecks(300, 3);
    const map = fitMap("check", 2, items, "temperature_bias");
    const sorted = [...items].sort((a, b) => a.p[0]! - b.p[0]!);
    const after = sorted.map((e) => applyMap(map, e.p)[0]!);
    for (let i = 1; i < after.length; i++) expect(after[i]!).toBeGreaterThanOrEqual(after[i - 1]!);
  });

  it("is deterministic: the same items give the same map bit for bit", () => {
    const items = underConfidentChecks(500, 4);
    expect(fitMap("check", 2, items, "temperature_bias")).toEqual(
      fitMap("check", 2, items, "temperature_bias"),
    );
  });

  it("a pick whose version favours its first label learns a bias per label when the items allow it", () => {
    const rng = new Rng(11);
    const items: Labelled[] = Array.from({ length: 400 }, () => {
      const y = Math.floor(rng.next() * 3);
      const raw = [0.2, 0.2, 0.2].map((v, i) => (i === y ? v + 0.5 : v) + (i === 0 ? 0.4 : 0));
      const sum = raw.reduce((a, b) => a + b, 0);
      return { p: raw.map((v) => v / sum), y };
    });
    const fit = chooseFit("pick", 3, items);
    expect(fit.method).toBe("temperature_bias");
    expect(fit.nllAfter).toBeLessThan(fit.nllBefore);
    expect(fit.map.bias[0]!).toBeLessThan(fit.map.bias[1]!);
  });
});

describe("the cross-validation (issue 44: each fold's answers calibrated by a map fitted on the other folds)", () => {
  it("an item's answer does not depend on its own label", () => {
    const items = underConfidentChecks(100, 5);
    const flipped = items.map((e, j) => (j === 0 ? { ...e, y: 1 - e.y } : e));
    expect(crossValidated("check", 2, flipped, "temperature_bias")[0]).toEqual(
      crossValidated("check", 2, items, "temperature_bias")[0],
    );
    expect(FOLDS).toBe(5);
  });
});
