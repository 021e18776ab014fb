import { describe, expect, it } from "vitest";
import { ANSWER_CODES } from "../../../schema/answer-codes";
import { codeDistribution, fallbackMessages } from "../../../workers/clients/fallback";
import { decisionJson } from "../../../workers/decide/decision";

describe("fallback answer codes", () => {
  it("shows the pinned answer codes of the billed rendering (schema/answer-codes)", () => {
    const options = Array.from({ length: 30 }, (_, i) => ({ label: `option ${i}`, description: null }));
    const [, user] = fallbackMessages("state", {
      id: "q",
      type: "pick",
      instructions: "Which?",
      criteria: [],
      options,
    });
    const shown = [...user!.content.matchAll(/^([A-Z]{1,2}): /gm)].map((m) => m[1]);
    expect(shown).toEqual(ANSWER_CODES.slice(0, 30));
  });
});

describe("'codes past the top 20 share the leftover mass equally'", () => {
  it("normalises codes found in top_logprobs (whitespace trimmed, fillers ignored)", () => {
    const p = codeDistribution(
      [
        { token: "A", logprob: Math.log(0.6) },
        { token: " B", logprob: Math.log(0.2) },
        { token: "The", logprob: Math.log(0.1) },
        { token: "C", logprob: Math.log(0.1) },
      ],
      ["A", "B", "C"],
    );
    expect(p.map((x) => Number(x.toFixed(6)))).toEqual([0.666667, 0.222222, 0.111111]);
  });
  it("gives unseen codes equal shares of 1 − top mass", () => {
    const p = codeDistribution([{ token: "A", logprob: Math.log(0.7) }], ["A", "B", "C", "D"]);
    // A = 0.7; B, C, D share 0.3 equally.
    expect(p.map((x) => Number(x.toFixed(6)))).toEqual([0.7, 0.1, 0.1, 0.1]);
  });
});

describe("decision JSON", () => {
  it("'probabilities (label to number, in option order)' keeps integer-like labels in order", () => {
    const text = decisionJson({
      id: "req_01JAAAAAAAAAAAAAAAAAAAAAAA",
      created: 1,
      model: "svc-1.0.0",
      served_by: "gpu",
      calibration: "cal-20261121-0",
      answers: [
        {
          id: "q",
          answer: {
            type: "pick",
            choice: "10",
            probabilities: [
              ["b", 0.25],
              ["10", 0.5],
              ["2", 0.25],
            ],
            confidence: 0.05,
            abstained: false,
          },
        },
        { id: "c", answer: { type: "check", probability: 0.9, confidence: 0.5, abstained: false } },
      ],
      usage: {
        input_tokens: 3,
        state_tokens: 1,
        question_tokens: 2,
        charge_micro_cents: 15,
        unit_price_micro_cents: 5,
        tier: "t1",
      },
    });
    expect(text).toContain('"probabilities":{"b":0.25,"10":0.5,"2":0.25}');
    expect(Object.keys(JSON.parse(text))).toEqual([
      "id",
      "object",
      "created",
      "model",
      "served_by",
      "calibration",
      "answers",
      "usage",
    ]);
    expect(text.indexOf('"q"')).toBeLessThan(text.indexOf('"c"'));
  });
});
