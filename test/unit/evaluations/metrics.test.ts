import { describe, expect, it } from "vitest";
import { confidence } from "../../../schema/answers";
import type { EngineAnswer } from "../../../schema/engine-protocol";
import {
  evaluationMetrics,
  questionMetrics,
  rocAuc,
  type Scored,
  scoreAnswer,
  thresholds,
} from "../../../workers/evaluations/metrics";

const checkAnswer = (p: number): EngineAnswer => ({
  type: "check",
  probability: p,
  confidence: confidence([p, 1 - p]),
  abstained: false,
});
const s = (correct: boolean, conf: number, top = conf): Scored => ({
  type: "pick",
  correct,
  top,
  confidence: conf,
  brier: 0,
});

describe("scoring one answer", () => {
  it("check: right when p(yes) ≥ 0.5 matches, Brier (p − y)², top = max(p, 1 − p)", () => {
    expect(scoreAnswer(checkAnswer(0.8), true)).toMatchObject({ correct: true, top: 0.8 });
    expect(scoreAnswer(checkAnswer(0.8), false)).toMatchObject({ correct: false, top: 0.8 });
    expect(scoreAnswer(checkAnswer(0.8), false).brier).toBeCloseTo(0.64);
    expect(scoreAnswer(checkAnswer(0.3), false)).toMatchObject({ correct: true, top: 0.7 });
  });

  it("pick: right when the choice is the label; Brier over every label", () => {
    const a: EngineAnswer = {
      type: "pick",
      choice: "a",
      probabilities: [
        ["a", 0.6],
        ["b", 0.3],
        ["10", 0.1],
      ],
      confidence: 0.2,
      abstained: false,
    };
    expect(scoreAnswer(a, "a")).toMatchObject({ correct: true, top: 0.6, confidence: 0.2 });
    expect(scoreAnswer(a, "b").brier).toBeCloseTo(0.36 + 0.49 + 0.01);
  });

  it("rate: exact level (argmax) and |rating − expected index|", () => {
    const a: EngineAnswer = {
      type: "rate",
      rating: 1.2,
      levels: ["low", "mid", "high"],
      probabilities: [0.1, 0.6, 0.3],
      confidence: 0.3,
      abstained: false,
    };
    expect(scoreAnswer(a, "mid")).toMatchObject({ correct: true, levelError: expect.closeTo(0.2) });
    expect(scoreAnswer(a, "high")).toMatchObject({ correct: false, levelError: expect.closeTo(0.8) });
  });
});

describe("metrics", () => {
  it("AUC: perfect ranking 1, reversed 0, ties half, one class null", () => {
    const pts = (ps: number[], ys: boolean[]) => ps.map((p, i) => ({ p, expected: ys[i]! }));
    expect(rocAuc(pts([0.9, 0.8, 0.2, 0.1], [true, true, false, false]))).toBe(1);
    expect(rocAuc(pts([0.1, 0.2, 0.8, 0.9], [true, true, false, false]))).toBe(0);
    expect(rocAuc(pts([0.5, 0.5], [true, false]))).toBe(0.5);
    expect(rocAuc(pts([0.5, 0.7], [true, true]))).toBeNull();
  });

  it("ECE-15 is 0 when each bin's accuracy equals its mean probability, and |acc − p| otherwise", () => {
    const perfect = [s(true, 1, 1), s(true, 1, 1)];
    expect(questionMetrics(perfect).ece15).toBe(0);
    const over = [s(false, 0.9, 0.9), s(false, 0.9, 0.9)];
    expect(questionMetrics(over).ece15).toBeCloseTo(0.9);
    const m = questionMetrics([s(true, 0.9, 0.95), s(false, 0.9, 0.95)]);
    expect(m.reliability).toHaveLength(15);
    expect(m.reliability[14]).toMatchObject({ count: 2, accuracy: 0.5, mean_probability: 0.95 });
    expect(m.ece15).toBeCloseTo(0.45);
  });

  it("thresholds: the smallest min_confidence whose kept answers reach the target, with coverage", () => {
    // Confidence 0.9 and 0.8 right, 0.5 wrong, 0.2 right: 0.90 needs t = 0.8 (2 of 2, coverage 0.5).
    const xs = [s(true, 0.9), s(true, 0.8), s(false, 0.5), s(true, 0.2)];
    expect(thresholds(xs)).toEqual([
      { target: 0.9, min_confidence: 0.8, coverage: 0.5 },
      { target: 0.95, min_confidence: 0.8, coverage: 0.5 },
      { target: 0.99, min_confidence: 0.8, coverage: 0.5 },
    ]);
    // Everything right: t = 0 keeps all.
    expect(thresholds([s(true, 0.3), s(true, 0.6)])[2]).toEqual({
      target: 0.99,
      min_confidence: 0,
      coverage: 1,
    });
    // Nothing right: null.
    expect(thresholds([s(false, 0.3)])[0]).toEqual({ target: 0.9, min_confidence: null, coverage: null });
  });

  it("risk–coverage: 21 steps, coverage falls, accuracy among kept", () => {
    const m = questionMetrics([s(true, 0.9), s(true, 0.8), s(false, 0.5), s(true, 0.2)]);
    expect(m.risk_coverage).toHaveLength(21);
    expect(m.risk_coverage[0]).toEqual({ min_confidence: 0, coverage: 1, accuracy: 0.75 });
    expect(m.risk_coverage[12]).toEqual({ min_confidence: 0.6, coverage: 0.5, accuracy: 1 });
    expect(m.risk_coverage[20]).toEqual({ min_confidence: 1, coverage: 0, accuracy: null });
  });

  it("per question id over items, only questions with an expected label", () => {
    const m = evaluationMetrics([
      { answers: [{ id: "q", answer: checkAnswer(0.9) }], expected: { q: true } },
      { answers: [{ id: "q", answer: checkAnswer(0.2) }], expected: { q: true } },
      { answers: [{ id: "q", answer: checkAnswer(0.1) }], expected: { q: false } },
    ]);
    expect(Object.keys(m)).toEqual(["q"]);
    expect(m.q).toMatchObject({ n: 3, accuracy: 0.6667, auc: 1, mean_absolute_level_error: null });
    expect(m.q!.brier).toBeCloseTo((0.01 + 0.64 + 0.01) / 3, 4);
  });
});
