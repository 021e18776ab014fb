import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { confidence, roundUnits, shapeAnswer, UNITS } from "../../../schema/answers";
import type { ScoreQuestion } from "../../../schema/engine-protocol";

const dist = fc
  .array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 255 })
  .filter((xs) => xs.reduce((a, b) => a + b, 0) > 1e-9)
  .map((xs) => {
    const s = xs.reduce((a, b) => a + b, 0);
    return xs.map((x) => x / s);
  });

const printedSum = (ps: number[]) => ps.map((p) => Math.round(p * UNITS)).reduce((a, b) => a + b, 0);

describe("rounding: 4 decimals, summing to exactly 1 (largest remainder)", () => {
  it("property: units sum to exactly 10000, each within 1e-4 of the truth, printed with ≤ 4 decimals", () => {
    fc.assert(
      fc.property(dist, (p) => {
        const u = roundUnits(p);
        expect(u.reduce((a, b) => a + b, 0)).toBe(UNITS);
        u.forEach((x, i) => {
          expect(Number.isInteger(x)).toBe(true);
          expect(Math.abs(x / UNITS - (p[i] as number))).toBeLessThan(1e-4 + 1e-12);
          expect(/^(0|1)(\.\d{1,4})?$/.test(String(x / UNITS))).toBe(true);
        });
        expect(printedSum(u.map((x) => x / UNITS))).toBe(UNITS);
      }),
      { numRuns: 2000 },
    );
  });

  it.each([
    { p: [1 / 3, 1 / 3, 1 / 3], want: [3334, 3333, 3333] },
    { p: [0.5, 0.5], want: [5000, 5000] },
    { p: [0.00005, 0.00005, 0.9999], want: [1, 0, 9999] },
    { p: [1], want: [10000] },
    { p: [0.25, 0.25, 0.25, 0.25], want: [2500, 2500, 2500, 2500] },
    { p: [1 / 7, 2 / 7, 4 / 7], want: [1429, 2857, 5714] },
  ])("ties go to the earlier index: $p", ({ p, want }) => {
    expect(roundUnits(p)).toEqual(want);
  });

  it("rounding never reverses the order of two probabilities", () => {
    fc.assert(
      fc.property(dist, (p) => {
        const u = roundUnits(p);
        for (let i = 0; i < p.length; i++)
          for (let j = 0; j < p.length; j++)
            if ((p[i] as number) > (p[j] as number))
              expect(u[i] as number).toBeGreaterThanOrEqual(u[j] as number);
      }),
      { numRuns: 300 },
    );
  });
});

const pick = (labels: string[], min_confidence?: number): ScoreQuestion => ({
  id: "q",
  type: "pick",
  instructions: "x",
  criteria: [],
  options: labels.map((label) => ({ label, description: null })),
  ...(min_confidence === undefined ? {} : { min_confidence }),
});

describe("Decision table shapes", () => {
  it("pick: `choice` is the most probable label; ties go to the earlier option", () => {
    const a = shapeAnswer(pick(["10", "2", "1"]), [0.4, 0.4, 0.2]);
    expect(a).toMatchObject({ type: "pick", choice: "10" });
    if (a.type !== "pick") throw new Error();
    expect(a.probabilities).toEqual([
      ["10", 0.4],
      ["2", 0.4],
      ["1", 0.2],
    ]);
  });

  it("pick: confidence = 1 − H(p)/ln K; uniform → 0, certain → 1, one option → 1", () => {
    expect(confidence([0.25, 0.25, 0.25, 0.25])).toBe(0);
    expect(confidence([1, 0, 0])).toBe(1);
    expect(confidence([1])).toBe(1);
    expect(confidence([0.9, 0.1])).toBe(0.531);
  });

  it("`abstained` is true when the answer's confidence is below min_confidence", () => {
    expect(shapeAnswer(pick(["a", "b"], 0.6), [0.9, 0.1]).abstained).toBe(true);
    expect(shapeAnswer(pick(["a", "b"], 0.5), [0.9, 0.1]).abstained).toBe(false);
    expect(shapeAnswer(pick(["a", "b"]), [0.5, 0.5]).abstained).toBe(false);
  });

  it("rate: `rating` is the probability-weighted level index (from the rounded probabilities)", () => {
    const q: ScoreQuestion = {
      id: "r",
      type: "rate",
      instructions: "x",
      criteria: [],
      levels: ["lo", "mid", "hi"],
    };
    const a = shapeAnswer(q, [0.2, 0.3, 0.5]);
    expect(a).toEqual({
      type: "rate",
      rating: 1.3,
      levels: ["lo", "mid", "hi"],
      probabilities: [0.2, 0.3, 0.5],
      confidence: confidence([0.2, 0.3, 0.5]),
      abstained: false,
    });
  });

  it("check: `probability` is the probability of yes (outcomes [yes, no]), 4 decimals", () => {
    const q: ScoreQuestion = { id: "c", type: "check", instructions: "x", criteria: [] };
    expect(shapeAnswer(q, [0.123456, 0.876544])).toMatchObject({ type: "check", probability: 0.1235 });
  });
});
