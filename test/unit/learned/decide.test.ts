import { describe, expect, it } from "vitest";
import { shapeAnswer } from "../../../schema/answers";
import type { ValidatedDecide } from "../../../schema/decide";
import type { ScoreQuestion } from "../../../schema/engine-protocol";
import { WORDS_PROCEDURE, wordCounts } from "../../../schema/learned/features";
import { applyWordsModel, type WordsModel, wordsModelJson } from "../../../schema/learned/model";
import { CalibrationLookup, calibrateAnswers } from "../../../workers/decide/calibration";
import { questionFingerprint } from "../../../workers/decide/question-fingerprint";
import type { Database } from "../../../workers/stores/db";
import type { KeyRecord } from "../../../workers/stores/keys";

const prize = wordCounts("prize").buckets[0] as number;
const model: WordsModel = {
  procedure: WORDS_PROCEDURE,
  vocab: [prize],
  idf: [1.5],
  scale: 1,
  bias: [0, 0],
  weights: [[3]],
  l2: 0.1,
};
const q: ScoreQuestion = { id: "spam", type: "check", instructions: "Is it spam?", criteria: [] };
const served = (distribution: number[]) => ({
  served_by: "gpu" as const,
  result: {
    model: "svc-1.5.1",
    calibration: "cal-20261126-0",
    answers: [{ id: "spam", answer: shapeAnswer(q, distribution), distribution }],
  },
});

describe("a decide answers with a state-reading calibration (issue 49)", () => {
  const cals = new Map([["spam", { id: "calib_w", map: { temperature: 1, bias: [0, 0] }, model }]]);

  it("from the request's rendered state: the same answer the fit's model gives, and the record says which", () => {
    const out = calibrateAnswers([q], served([0.5, 0.5]), cals, "You won a PRIZE");
    const p = applyWordsModel(model, [0.5, 0.5], wordCounts("You won a PRIZE"));
    expect(out.answers[0]).toEqual({ id: "spam", answer: shapeAnswer(q, p), calibration: "calib_w" });
    expect(out.used).toEqual({ spam: "calib_w" });
    expect((p[0] as number) > 0.9).toBe(true);
  });

  it("the same request gives the same bytes; another state another answer", () => {
    const a = JSON.stringify(calibrateAnswers([q], served([0.5, 0.5]), cals, "You won a PRIZE"));
    expect(JSON.stringify(calibrateAnswers([q], served([0.5, 0.5]), cals, "You won a PRIZE"))).toBe(a);
    const other = calibrateAnswers([q], served([0.5, 0.5]), cals, "Minutes of the meeting");
    expect(other.answers[0]?.answer).toEqual(shapeAnswer(q, [0.5, 0.5]));
  });
});

describe("the hot path with a state-reading calibration (issue 49: 'no new Postgres round trip after the first')", () => {
  it("its model is read once per isolate, on the first decide that matches it; then no query", async () => {
    const fingerprint = await questionFingerprint({
      id: "spam",
      type: "check",
      instructions: "Is it spam?",
      criteria: null,
    });
    const calls: string[] = [];
    const db = {
      configured: true,
      sql: () => ({
        query: async (text: string) => {
          calls.push(text);
          if (text.includes("learned IS NOT NULL AS learned"))
            return [
              {
                id: "calib_w",
                model: "svc-1.5.1",
                fingerprint,
                map: '{"temperature":1,"bias":[0,0]}',
                learned: true,
              },
            ];
          return [{ id: "calib_w", learned: wordsModelJson(model) }];
        },
      }),
    } as unknown as Database;
    const key = { accountId: "acc_1", account: { calibrationsGeneration: 3 } } as unknown as KeyRecord;
    const request: ValidatedDecide = {
      model: "svc-1",
      fallback: "allow",
      state: "s",
      questions: [{ id: "spam", type: "check", instructions: "Is it spam?", criteria: null }],
    };
    const lookup = new CalibrationLookup(db);
    const first = await lookup.forRequest(key, request, "svc-1.5.1", "live");
    expect(first.get("spam")?.model).toEqual(model);
    expect(calls).toHaveLength(2);
    for (let i = 0; i < 3; i++) await lookup.forRequest(key, request, "svc-1.5.1", "live");
    expect(calls).toHaveLength(2);
    // A replay reads the maps by id (one query), the model from the isolate.
    const replay = await lookup.byIds("acc_1", { spam: "calib_w" });
    expect(replay.get("spam")?.model).toEqual(model);
    expect(calls).toHaveLength(3);
  });
});
