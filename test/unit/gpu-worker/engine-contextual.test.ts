import { describe, expect, it } from "vitest";
import { applyCalibration, type Calibration, subtractContentFree } from "../../../gpu-worker/src/calibration";
import { Engine } from "../../../gpu-worker/src/engine";
import type { Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { scorerStandIn } from "../../support/scorer-stand-in";

const identity = { temperature: 1, bias: [] as number[] };
const cal = (contextual: boolean): Calibration => ({
  version: "cal-20261123-9",
  framing: "plain-mix-2",
  content_free_state: "N/A",
  types: { pick: identity, rate: identity, check: { ...identity, contextual } },
});
const questions: ScoreQuestion[] = [
  { id: "a", type: "check", instructions: "Is it good?", criteria: [] },
  {
    id: "b",
    type: "pick",
    instructions: "Which?",
    criteria: [],
    options: [
      { label: "x", description: null },
      { label: "y", description: null },
    ],
  },
];

/** A scorer stand-in: [yes, no] = [-1, -2] on any real state, [-3, -1] on the content-free state. */
const fakeScorer = (seen: string[]): Scorer =>
  scorerStandIn((state, qs, _framing, call) => {
    if (call === "rawScores") seen.push(state);
    return {
      scores: qs.map((q) => (q.type === "check" ? (state === "N/A" ? [-3, -1] : [-1, -2]) : [-1, -1])),
      tokensPerOutcome: qs.map(() => [1, 1]),
      meter: { tokens_evaluated: 10, tokens_reused: 0 },
    };
  });

describe("contextual (content-free) calibration", () => {
  it("subtracts outcome by outcome; an unreachable outcome keeps its raw score", () => {
    expect(subtractContentFree([-1, -2], [-3, -1])).toEqual([2, -1]);
    expect(subtractContentFree([Number.NEGATIVE_INFINITY, -2], [-3, -1])).toEqual([
      Number.NEGATIVE_INFINITY,
      -1,
    ]);
  });

  it("a contextual type is also scored on the content-free state, only its questions, and the meter counts both", async () => {
    const seen: string[] = [];
    const r = await new Engine(fakeScorer(seen), cal(true), "svc-1.1.0").score({
      request_id: "r",
      model: "svc-1.1.0",
      state: "S",
      questions,
    });
    expect(seen).toEqual(["N/A"]);
    const p = applyCalibration("check", [2, -1], [1, 1], cal(true));
    expect(r.answers[0]?.answer).toMatchObject({
      type: "check",
      probability: Math.round((p[0] as number) * 1e4) / 1e4,
    });
    expect(r.meter.tokens_evaluated).toBe(20);
  });

  it("without `contextual` nothing else is scored (svc-1.0.0's artifact behaves as before)", async () => {
    const seen: string[] = [];
    const r = await new Engine(fakeScorer(seen), cal(false), "svc-1.0.0").score({
      request_id: "r",
      model: "svc-1.0.0",
      state: "S",
      questions,
    });
    expect(seen).toEqual([]);
    expect(r.meter.tokens_evaluated).toBe(10);
  });
});
