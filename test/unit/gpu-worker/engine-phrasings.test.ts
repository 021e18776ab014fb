import { describe, expect, it } from "vitest";
import { applyPhrased, type Calibration, phraseFeatures } from "../../../gpu-worker/src/calibration";
import { Engine } from "../../../gpu-worker/src/engine";
import { PHRASINGS } from "../../../gpu-worker/src/phrasings";
import type { RawScores, Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { scorerStandIn } from "../../support/scorer-stand-in";

const identity = { temperature: 1, bias: [] as number[] };
const cal: Calibration = {
  version: "cal-20261123-9",
  framing: "plain-mix-2",
  content_free_state: "N/A",
  types: {
    pick: identity,
    rate: identity,
    check: {
      temperature: 2,
      bias: [0.1, 0],
      contextual: true,
      phrasings: ["ph-qa", "ph-q-a"],
      agreement_slope: 1,
    },
  },
};
const check: ScoreQuestion = { id: "a", type: "check", instructions: "Is it good?", criteria: [] };

/** Scores by phrasing (read from the expanded question's prompt): on the state and on the content-free state. */
function fakeScorer(calls: { state: string; n: number; prompts: string[] }[]): Scorer {
  const raw = (
    state: string,
    qs: ScoreQuestion[],
    framing: Parameters<Scorer["rawScores"]>[2],
  ): RawScores => {
    const prompts = qs.map((q) =>
      framing
        .questionPrompt(q)
        .map((p) => p.text)
        .join(""),
    );
    calls.push({ state, n: qs.length, prompts });
    return {
      scores: prompts.map((p) =>
        p.startsWith("Q:") ? (state === "N/A" ? [-1, -1] : [-3, -1]) : state === "N/A" ? [-2, -1] : [-1, -2],
      ),
      tokensPerOutcome: qs.map(() => [1, 1]),
      meter: { tokens_evaluated: 10, tokens_reused: 0 },
    };
  };
  return scorerStandIn(raw);
}

describe("phrasings averaged after one state prefix", () => {
  it("features: the mean of (score − content-free) per outcome, and the share of phrasings that agree", () => {
    const f = phraseFeatures(
      [
        [-1, -2],
        [-3, -1],
      ],
      [
        [-2, -1],
        [-1, -1],
      ],
    );
    expect(f.mean).toEqual([-0.5, -0.5]);
    expect(f.agree).toBe(0.5);
  });

  it("every phrasing shares the calibration framing's state prefix (the state is evaluated once)", () => {
    for (const p of Object.values(PHRASINGS)) expect(p.statePrefix("S")).toEqual([{ text: "S\n\n" }]);
  });

  it("one request on the state asks each question in every phrasing; the content-free pass likewise", async () => {
    const calls: { state: string; n: number; prompts: string[] }[] = [];
    const r = await new Engine(fakeScorer(calls), cal, "svc-1.2.0").score({
      request_id: "r",
      model: "svc-1.2.0",
      state: "S",
      questions: [check],
    });
    expect(calls.map((c) => [c.state, c.n])).toEqual([
      ["S", 2],
      ["N/A", 2],
    ]);
    expect(calls[0]?.prompts).toEqual(["Question: Is it good?\nAnswer:", "Q: Is it good?\nA:"]);
    const p = applyPhrased(
      "check",
      [
        [-1, -2],
        [-3, -1],
      ],
      [
        [-2, -1],
        [-1, -1],
      ],
      cal,
    );
    expect(r.answers[0]?.answer).toMatchObject({ probability: Math.round((p[0] as number) * 1e4) / 1e4 });
    expect(r.meter.tokens_evaluated).toBe(20);
  });

  it("z = mean · (1/T + slope · agree) + bias", () => {
    const p = applyPhrased("check", [[-1, -2]], [[-2, -1]], cal);
    // mean [1, -1], agree 1: z = [1 · 1.5 + 0.1, −1 · 1.5]
    const z = [1.6, -1.5];
    expect(p[0]).toBeCloseTo(
      Math.exp(z[0] as number) / (Math.exp(z[0] as number) + Math.exp(z[1] as number)),
      12,
    );
  });

  it("partial contextual: z = S̄/T + content_free_weight · C̄ (w = −1/T is the pure contextual map, w = 0 the raw one)", () => {
    const partial: Calibration = {
      ...cal,
      types: {
        ...cal.types,
        pick: {
          temperature: 2,
          bias: [],
          contextual: true,
          phrasings: ["ph-qa"],
          content_free_weight: -0.25,
        },
      },
    };
    const p = applyPhrased("pick", [[-1, -3]], [[-2, -1]], partial);
    const z = [-1 / 2 + -0.25 * -2, -3 / 2 + -0.25 * -1];
    expect(p[0]).toBeCloseTo(
      Math.exp(z[0] as number) / (Math.exp(z[0] as number) + Math.exp(z[1] as number)),
      12,
    );
  });
});

describe("svc-1.4.0's pick phrasings: labels and descriptions", () => {
  const described: Calibration = {
    ...cal,
    types: { ...cal.types, pick: { ...identity, phrasings: ["ph-qa", "ph-qa-described"] } },
  };
  const pick = (descriptions: (string | null)[]): ScoreQuestion => ({
    id: "p",
    type: "pick",
    instructions: "Which?",
    criteria: [],
    options: descriptions.map((description, i) => ({ label: `k${i}`, description })),
  });

  it("ph-qa-described scores ` <description>` where an option has one, else ` <label>`", () => {
    expect(PHRASINGS["ph-qa-described"]?.continuations(pick(["German", null]))).toEqual([" German", " k1"]);
  });

  /** The scorer calls one request with `q` makes: [state, questions evaluated]. */
  async function evaluations(q: ScoreQuestion): Promise<[string, number][]> {
    const calls: { state: string; n: number; prompts: string[] }[] = [];
    await new Engine(fakeScorer(calls), described, "svc-1.4.0").score({
      request_id: "r",
      model: "svc-1.4.0",
      state: "S",
      questions: [q],
    });
    return calls.map((c) => [c.state, c.n]);
  }

  it("a pick without descriptions reads alike in both phrasings and is evaluated once", async () => {
    expect(await evaluations(pick([null, null]))).toEqual([["S", 1]]);
  });

  it("a pick with descriptions is evaluated in both phrasings after the one state prefix", async () => {
    expect(await evaluations(pick(["German", null]))).toEqual([["S", 2]]);
  });
});
