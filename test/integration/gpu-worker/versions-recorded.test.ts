import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CALIBRATION_DIR, loadCalibration } from "../../../gpu-worker/src/calibration";
import { Engine } from "../../../gpu-worker/src/engine";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { findModel } from "../../../schema/models";

// Replays of GPU originals are recomputed on the original exact version, so an older version's answers may never
// move. RECORDED: each older calibration's answers and meter for one request, computed on main before svc-1.3.0's
// engine changes (the gate and relevance reads), and svc-1.3.0's before svc-1.4.0 (option descriptions read); same
// model file, threads 1, one sequence, context 1024.
let scorer: Scorer;
beforeAll(async () => {
  scorer = await openScorer({ modelPath: defaultModelPath(), threads: 1, sequences: 1, contextSize: 1024 });
});
afterAll(async () => {
  await scorer?.close();
});

const QUESTIONS: ScoreQuestion[] = [
  { id: "refund", type: "check", instructions: "Does the customer ask for a refund?", criteria: [] },
  {
    id: "mood",
    type: "rate",
    instructions: "How upset is the customer?",
    criteria: [],
    levels: ["calm", "annoyed", "angry"],
  },
  {
    id: "team",
    type: "pick",
    instructions: "Which team should handle it?",
    criteria: [],
    options: [
      { label: "billing", description: null },
      { label: "shipping", description: null },
      { label: "technical support", description: null },
    ],
  },
];
const STATE = "The customer wrote: my parcel arrived broken, I want my money back.";

const RECORDED: Record<string, { answers: unknown; meter: unknown }> = {
  "cal-20261121-3": {
    answers: [
      {
        id: "refund",
        answer: {
          type: "check",
          probability: 0.4934,
          confidence: 0.0001,
          abstained: false,
        },
      },
      {
        id: "mood",
        answer: {
          type: "rate",
          rating: 1.1866,
          levels: ["calm", "annoyed", "angry"],
          probabilities: [0.2462, 0.321, 0.4328],
          confidence: 0.0239,
          abstained: false,
        },
      },
      {
        id: "team",
        answer: {
          type: "pick",
          choice: "technical support",
          probabilities: [
            ["billing", 0.0437],
            ["shipping", 0.3413],
            ["technical support", 0.615],
          ],
          confidence: 0.2694,
          abstained: false,
        },
      },
    ],
    meter: {
      tokens_evaluated: 60,
      tokens_reused: 75,
    },
  },
  "cal-20261123-0": {
    answers: [
      {
        id: "refund",
        answer: {
          type: "check",
          probability: 0.4672,
          confidence: 0.0031,
          abstained: false,
        },
      },
      {
        id: "mood",
        answer: {
          type: "rate",
          rating: 1.1257,
          levels: ["calm", "annoyed", "angry"],
          probabilities: [0.2859, 0.3025, 0.4116],
          confidence: 0.0124,
          abstained: false,
        },
      },
      {
        id: "team",
        answer: {
          type: "pick",
          choice: "shipping",
          probabilities: [
            ["billing", 0.292],
            ["shipping", 0.6387],
            ["technical support", 0.0693],
          ],
          confidence: 0.2438,
          abstained: false,
        },
      },
    ],
    meter: {
      tokens_evaluated: 89,
      tokens_reused: 98,
    },
  },
  "cal-20261123-1": {
    answers: [
      {
        id: "refund",
        answer: {
          type: "check",
          probability: 0.4672,
          confidence: 0.0031,
          abstained: false,
        },
      },
      {
        id: "mood",
        answer: {
          type: "rate",
          rating: 1.1257,
          levels: ["calm", "annoyed", "angry"],
          probabilities: [0.2859, 0.3025, 0.4116],
          confidence: 0.0124,
          abstained: false,
        },
      },
      {
        id: "team",
        answer: {
          type: "pick",
          choice: "shipping",
          probabilities: [
            ["billing", 0.2167],
            ["shipping", 0.6269],
            ["technical support", 0.1564],
          ],
          confidence: 0.1678,
          abstained: false,
        },
      },
    ],
    meter: {
      tokens_evaluated: 89,
      tokens_reused: 98,
    },
  },
  "cal-20261123-2": {
    answers: [
      {
        id: "refund",
        answer: { type: "check", probability: 0.4672, confidence: 0.0031, abstained: false },
      },
      {
        id: "mood",
        answer: {
          type: "rate",
          rating: 0.9819,
          levels: ["calm", "annoyed", "angry"],
          probabilities: [0.3524, 0.3133, 0.3343],
          confidence: 0.0011,
          abstained: false,
        },
      },
      {
        id: "team",
        answer: {
          type: "pick",
          choice: "shipping",
          probabilities: [
            ["billing", 0.2167],
            ["shipping", 0.6269],
            ["technical support", 0.1564],
          ],
          confidence: 0.1678,
          abstained: false,
        },
      },
    ],
    meter: { tokens_evaluated: 89, tokens_reused: 98 },
  },
};

const answer = async (calibration: string, questions = QUESTIONS) =>
  new Engine(scorer, loadCalibration(join(CALIBRATION_DIR, `${calibration}.json`)), calibration).score({
    request_id: "r0",
    model: calibration,
    state: STATE,
    questions,
  });

describe("older exact versions answer as they did at their release (replays stay byte-identical)", () => {
  it.each(["svc-1.0.0", "svc-1.1.0", "svc-1.2.0", "svc-1.3.0"])("%s", async (id) => {
    const cal = findModel(id)?.calibration as string;
    const r = await answer(cal);
    expect({ answers: r.answers, meter: r.meter }).toEqual(RECORDED[cal]);
  });

  it("svc-1.3.0 changes only rate: its pick and check answers are svc-1.2.0's", async () => {
    const r = await answer(findModel("svc-1.3.0")?.calibration as string);
    const old = RECORDED["cal-20261123-1"] as { answers: { id: string }[] };
    expect(r.answers.filter((a) => a.id !== "mood")).toEqual(old.answers.filter((a) => a.id !== "mood"));
    expect(r.answers.find((a) => a.id === "mood")).not.toEqual(old.answers.find((a) => a.id === "mood"));
  });

  it("svc-1.4.0 reads option descriptions: without any it answers and meters as svc-1.3.0; a pick sent as keys with descriptions names the option its description fits", async () => {
    const cal = findModel("svc-1.4.0")?.calibration as string;
    const r = await answer(cal);
    expect({ answers: r.answers, meter: r.meter }).toEqual(RECORDED["cal-20261123-2"]);

    const team = QUESTIONS[2] as Extract<ScoreQuestion, { type: "pick" }>;
    const keyed: ScoreQuestion = {
      ...team,
      options: team.options.map((o, i) => ({ label: `team_${i + 1}`, description: o.label })),
    };
    const now = (await answer(cal, [keyed])).answers[0]?.answer;
    const before = (await answer(findModel("svc-1.3.0")?.calibration as string, [keyed])).answers[0]?.answer;
    expect(now).toMatchObject({ choice: "team_2" }); // shipping, as the labelled pick answers
    expect(before).not.toMatchObject({ choice: "team_2" });
  });
});
