import { describe, expect, it } from "vitest";
import {
  applyPhrased,
  type Calibration,
  gated,
  gateFeatures,
  phraseFeatures,
  relevanceOf,
  softmax,
} from "../../../gpu-worker/src/calibration";
import { Engine } from "../../../gpu-worker/src/engine";
import type { RawScores, Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { STUB_NUMERICS } from "../../support/stub-numerics";

const identity = { temperature: 1, bias: [] as number[] };
const gate = {
  mode: "mix" as const,
  intercept: 0.5,
  state_spread: 0,
  free_spread: 0,
  margin: 1,
  state_mean: 0.1,
  free_mean: -0.2,
};
const cal: Calibration = {
  version: "cal-20261123-9",
  framing: "plain-mix-2",
  content_free_state: "N/A",
  types: {
    pick: {
      temperature: 2,
      bias: [],
      contextual: true,
      phrasings: ["ph-qa"],
      content_free_weight: -0.25,
      gate,
    },
    rate: identity,
    check: {
      temperature: 2,
      bias: [0.1, 0],
      contextual: true,
      phrasings: ["ph-qa"],
      relevance_weight: 0.5,
      relevance_per_token: false,
    },
  },
};
const sigmoid = (u: number) => 1 / (1 + Math.exp(-u));

describe("a gate toward uniform where the scores say the model does not know", () => {
  it("mix: p = g · softmax(z) + (1 − g) / K with g = σ(intercept + coefficients · features)", () => {
    const f = phraseFeatures([[-1, -3, -2]], [[-2, -1, -2]]);
    const z = [0.4, -0.2, 0.1];
    const x = gateFeatures(f, z);
    expect(x.margin).toBeCloseTo(0.3, 12);
    expect(x.state_mean).toBeCloseTo(-2, 12);
    expect(x.free_mean).toBeCloseTo(-5 / 3, 12);
    const g = sigmoid(0.5 + 0.3 + 0.1 * -2 + -0.2 * (-5 / 3));
    const p = gated(f, z, gate);
    for (const [i, q] of softmax(z).entries()) expect(p[i]).toBeCloseTo(g * q + (1 - g) / 3, 12);
  });

  it("scale: p = softmax(2g · z); a gate that is shut answers uniform", () => {
    const f = phraseFeatures([[-1, -3]]);
    const shut = {
      ...gate,
      mode: "scale" as const,
      intercept: -1000,
      margin: 0,
      state_mean: 0,
      free_mean: 0,
    };
    expect(gated(f, [3, -3], shut)).toEqual([0.5, 0.5]);
  });

  it("a pick type with a gate applies it after the partial map", () => {
    const p = applyPhrased("pick", [[-1, -3]], [[-2, -1]], cal);
    const f = phraseFeatures([[-1, -3]], [[-2, -1]]);
    const z = [-1 / 2 + -0.25 * -2, -3 / 2 + -0.25 * -1];
    expect(p).toEqual(gated(f, z, gate));
  });
});

describe("relevance: log P(question | state) − log P(question | content-free state) on the yes logit", () => {
  it("R̄ is the phrasings' mean difference, in nats or per prompt token", () => {
    const s = [
      { lp: -30, tokens: 10 },
      { lp: -20, tokens: 5 },
    ];
    const c = [
      { lp: -34, tokens: 10 },
      { lp: -21, tokens: 5 },
    ];
    expect(relevanceOf(s, c, false)).toBe(2.5);
    expect(relevanceOf(s, c, true)).toBeCloseTo((0.4 + 0.2) / 2, 12);
  });

  it("z_yes gains relevance_weight · R̄; without R̄ the type refuses to answer", () => {
    const p = applyPhrased("check", [[-1, -2]], [[-2, -1]], cal, 2);
    const z = [1 / 2 + 0.1 + 0.5 * 2, -1 / 2];
    expect(p).toEqual(softmax(z));
    expect(() => applyPhrased("check", [[-1, -2]], [[-2, -1]], cal)).toThrow(/relevance/);
  });

  it("the engine reads the prompt's log-probability on the state and on the content-free state", async () => {
    const calls: { state: string; relevance?: boolean[] }[] = [];
    const raw = (state: string, qs: ScoreQuestion[], relevance?: boolean[]): RawScores => {
      calls.push({ state, relevance });
      return {
        scores: qs.map(() => (state === "N/A" ? [-2, -1] : [-1, -2])),
        tokensPerOutcome: qs.map(() => [1, 1]),
        ...(relevance && {
          promptLogProbs: qs.map((_, i) =>
            relevance[i] ? { lp: state === "N/A" ? -33 : -30, tokens: 10 } : undefined,
          ),
        }),
        meter: { tokens_evaluated: 10, tokens_reused: 0 },
      };
    };
    const scorer: Scorer = {
      model: undefined as never,
      contextSize: 1024,
      numerics: STUB_NUMERICS,
      prepare: (state, qs, _framing, relevance) => ({ peakTokens: 1, state, qs, relevance }) as never,
      score: async (p) => {
        const x = p as unknown as { state: string; qs: ScoreQuestion[]; relevance?: boolean[] };
        return raw(x.state, x.qs, x.relevance);
      },
      rawScores: async (state, qs) => raw(state, qs),
      close: async () => {},
    };
    const q: ScoreQuestion = { id: "a", type: "check", instructions: "Is it good?", criteria: [] };
    const r = await new Engine(scorer, cal, "svc-1.3.0").score({
      request_id: "r",
      model: "svc-1.3.0",
      state: "S",
      questions: [q],
    });
    expect(calls).toEqual([
      { state: "S", relevance: [true] },
      { state: "N/A", relevance: [true] },
    ]);
    const p = applyPhrased("check", [[-1, -2]], [[-2, -1]], cal, 3);
    expect(r.answers[0]?.answer).toMatchObject({ probability: Math.round((p[0] as number) * 1e4) / 1e4 });
  });

  it("a relevance weight on a type without phrasings and content-free scores is refused at load", () => {
    const bad: Calibration = { ...cal, types: { ...cal.types, rate: { ...identity, relevance_weight: 1 } } };
    expect(() => new Engine(undefined as never, bad, "svc-x")).toThrow(/relevance needs/);
  });
});
