import { describe, expect, it } from "vitest";
import {
  accuracy,
  argmax,
  auc,
  brier,
  ece,
  eceNoiseFloor,
  nll,
  report,
  topLabelEce,
} from "../../../schema/metrics";

describe("eval metrics (hand-computed)", () => {
  it("argmax: ties go to the earlier outcome, like the engine's choice", () => {
    expect(argmax([0.4, 0.4, 0.2])).toBe(0);
    expect(argmax([0.1, 0.5, 0.4])).toBe(1);
  });

  it("accuracy counts argmax hits", () => {
    expect(
      accuracy(
        [
          [0.9, 0.1],
          [0.3, 0.7],
          [0.6, 0.4],
          [0.5, 0.5],
        ],
        [0, 0, 0, 1],
      ),
    ).toBe(0.5);
  });

  it.each([
    { name: "perfect ranking", s: [0.9, 0.8, 0.2, 0.1], y: [true, true, false, false], want: 1 },
    { name: "inverted ranking", s: [0.1, 0.2, 0.8, 0.9], y: [true, true, false, false], want: 0 },
    // pos {0.8, 0.4}, neg {0.6, 0.2}: pairs (0.8>0.6)(0.8>0.2)(0.4<0.6)(0.4>0.2) → 3/4
    { name: "one swapped pair", s: [0.8, 0.4, 0.6, 0.2], y: [true, true, false, false], want: 0.75 },
    // every pair tied → 1/2
    { name: "all tied", s: [0.5, 0.5, 0.5, 0.5], y: [true, false, true, false], want: 0.5 },
  ])("AUC: $name", ({ s, y, want }) => {
    expect(auc(s, y)).toBeCloseTo(want, 12);
  });

  it("AUC is NaN with one class only", () => {
    expect(auc([0.1, 0.2], [true, true])).toBeNaN();
  });

  it("ECE-15: equal-width bins weighted by count", () => {
    // bin of 0.95 (index 14): conf 0.95, 0.95, acc 1/2 → |0.5−0.95| = 0.45, weight 2/4
    // bin of 0.5 (index 7): conf 0.5, 0.5, acc 1/2 → 0
    expect(ece([0.95, 0.95, 0.5, 0.5], [true, false, true, false])).toBeCloseTo(0.225, 12);
    // conf 1.0 lands in the last bin, 0 in the first
    expect(ece([1, 0], [true, false])).toBeCloseTo(0, 12);
    expect(ece([1, 0], [false, true])).toBeCloseTo(1, 12);
  });

  it("ECE noise floor: 0 for certain predictions; ~ sqrt(2/π)·sqrt(p(1−p)/n) for one bin; shrinks as 1/sqrt(n)", () => {
    expect(eceNoiseFloor([1, 1, 1, 0, 0])).toBe(0);
    const at = (n: number) => eceNoiseFloor(new Array<number>(n).fill(0.5), 2000);
    expect(at(100)).toBeCloseTo(Math.sqrt(2 / Math.PI) * Math.sqrt(0.25 / 100), 2);
    expect(at(400) / at(100)).toBeCloseTo(0.5, 1);
  });

  it("top-label ECE uses max probability and argmax correctness", () => {
    // confidences 0.8 (correct) and 0.8 (wrong) → same bin, acc 0.5, conf 0.8 → 0.3
    expect(
      topLabelEce(
        [
          [0.8, 0.2],
          [0.2, 0.8],
        ],
        [0, 0],
      ),
    ).toBeCloseTo(0.3, 12);
  });

  it("Brier (multi-class): mean Σ (p_k − y_k)²", () => {
    // item 1: (0.7−1)² + 0.2² + 0.1² = 0.09+0.04+0.01 = 0.14; item 2: 0.5² + (0.5−1)² + 0 = 0.5 → mean 0.32
    expect(
      brier(
        [
          [0.7, 0.2, 0.1],
          [0.5, 0.5, 0],
        ],
        [0, 1],
      ),
    ).toBeCloseTo(0.32, 12);
  });

  it("NLL: mean −ln p(correct), floored at 1e-12", () => {
    expect(
      nll(
        [
          [0.5, 0.5],
          [0.25, 0.75],
        ],
        [0, 1],
      ),
    ).toBeCloseTo((Math.log(2) + Math.log(4 / 3)) / 2, 12);
    expect(nll([[1, 0]], [1])).toBeCloseTo(-Math.log(1e-12), 9);
  });

  it("report for check adds AUC and ECE of P(yes) (outcome 0 = yes)", () => {
    const r = report(
      [
        [0.9, 0.1],
        [0.2, 0.8],
        [0.6, 0.4],
      ],
      [0, 1, 1],
      true,
    );
    expect(r.n).toBe(3);
    expect(r.accuracy).toBeCloseTo(2 / 3, 12);
    expect(r.auc).toBeCloseTo(1, 12);
    // P(yes) 0.9 (yes) bin 13, 0.2 (no) bin 3, 0.6 (no) bin 9 → (0.1 + 0.2 + 0.6)/3
    expect(r.eceYes).toBeCloseTo(0.3, 12);
    expect(report([[1, 0]], [0], false).auc).toBeUndefined();
  });
});
