import { describe, expect, it } from "vitest";
import { shapeAnswer } from "../../../schema/answers";
import type { ValidatedDecide } from "../../../schema/decide";
import type { ScoreQuestion, ScoreResponse } from "../../../schema/engine-protocol";
import { CalibrationLookup, calibrateAnswers } from "../../../workers/decide/calibration";
import { questionFingerprint } from "../../../workers/decide/question-fingerprint";
import type { Database } from "../../../workers/stores/db";
import type { KeyRecord } from "../../../workers/stores/keys";

/** A database that counts its queries and answers `rows` to every one. */
function countingDb(rows: Record<string, unknown>[] = []) {
  const calls: string[] = [];
  const db = {
    configured: true,
    sql: () => ({
      query: async (text: string) => {
        calls.push(text);
        return rows;
      },
    }),
  } as unknown as Database;
  return { db, calls };
}

const key = (generation?: number) =>
  ({ accountId: "acc_1", account: { calibrationsGeneration: generation } }) as unknown as KeyRecord;
const request: ValidatedDecide = {
  model: "svc-1",
  fallback: "allow",
  state: "s",
  questions: [{ id: "q", type: "check", instructions: "Is it?", criteria: null }],
};

describe("the hot path (issue 44: no new round trip for an account without calibrations)", () => {
  it("an account that never calibrated (generation 0 or absent) looks nothing up", async () => {
    const { db, calls } = countingDb();
    const lookup = new CalibrationLookup(db);
    expect((await lookup.forRequest(key(0), request, "svc-1.5.1", "live")).size).toBe(0);
    expect((await lookup.forRequest(key(), request, "svc-1.5.1", "live")).size).toBe(0);
    expect(calls).toHaveLength(0);
  });

  it("an account with calibrations: one query per isolate per generation, then none", async () => {
    const { db, calls } = countingDb([]);
    const lookup = new CalibrationLookup(db);
    for (let i = 0; i < 3; i++) await lookup.forRequest(key(4), request, "svc-1.5.1", "live");
    expect(calls).toHaveLength(1);
    await lookup.forRequest(key(5), request, "svc-1.5.1", "live");
    expect(calls).toHaveLength(2);
  });
});

describe("calibrateAnswers", () => {
  const q: ScoreQuestion = {
    id: "q",
    type: "check",
    instructions: "Is it?",
    criteria: [],
    min_confidence: 0.3,
  };
  const answer = shapeAnswer(q, [0.6, 0.4]);
  const served = (by: "gpu" | "fallback", answers: ScoreResponse["answers"]) => ({
    served_by: by,
    result: { model: "svc-1.5.1", calibration: "cal-20261126-0", answers },
  });
  it("answers a calibrated question from its unrounded distribution, min_confidence after the map; others as they were", () => {
    const map = { temperature: 0.25, bias: [0, 0] };
    const out = calibrateAnswers(
      [q, { ...q, id: "r" }],
      served("gpu", [
        { id: "q", answer, distribution: [0.6, 0.4] },
        { id: "r", answer, distribution: [0.6, 0.4] },
      ]),
      new Map([["q", { id: "calib_1", map }]]),
      "a state",
    );
    // logit 0.405 × 4 → P(yes) 0.835, confidence 0.35: no longer abstains at 0.3, where the version's 0.6 did.
    expect(answer.abstained).toBe(true);
    expect(out.answers[0]).toEqual({
      id: "q",
      answer: { type: "check", probability: 0.8351, confidence: 0.354, abstained: false },
      calibration: "calib_1",
    });
    expect(out.answers[1]).toEqual({ id: "r", answer });
    expect(out.used).toEqual({ q: "calib_1" });
  });

  it("without the worker's distribution (an older worker) the answer stays the version's, and nothing is recorded", () => {
    const out = calibrateAnswers(
      [q],
      served("gpu", [{ id: "q", answer }]),
      new Map([["q", { id: "calib_1", map: { temperature: 0.5, bias: [0, 0] } }]]),
      "a state",
    );
    expect(out).toEqual({ answers: [{ id: "q", answer }], used: {} });
  });

  it("a fallback answer never uses an account's map", () => {
    const out = calibrateAnswers(
      [q],
      served("fallback", [{ id: "q", answer, distribution: [0.6, 0.4] }]),
      new Map([["q", { id: "calib_1", map: { temperature: 0.5, bias: [0, 0] } }]]),
      "a state",
    );
    expect(out).toEqual({ answers: [{ id: "q", answer }], used: {} });
  });
});

describe("a change made in this isolate", () => {
  it("is read afresh for the key cache's second, even where the cached key still says generation 0", async () => {
    const { db, calls } = countingDb([]);
    let t = 1_000;
    const lookup = new CalibrationLookup(db, () => t);
    lookup.invalidate("acc_1");
    await lookup.forRequest(key(0), request, "svc-1.5.1", "live");
    await lookup.forRequest(key(0), request, "svc-1.5.1", "live");
    expect(calls).toHaveLength(2);
    t += 1_001;
    await lookup.forRequest(key(0), request, "svc-1.5.1", "live");
    expect(calls).toHaveLength(2);
  });
});

describe("modes (issue 50: a test key alone never changes what a live decide answers)", () => {
  const row = async (id: string, mode: "live" | "test") => ({
    id,
    model: "svc-1.5.1",
    fingerprint: await questionFingerprint(request.questions[0]!),
    mode,
    map: JSON.stringify({ temperature: 1, bias: [0, 0] }),
    learned: false,
  });

  it("live decides answer only with live calibrations; test decides with the test one if there is one, else the live one", async () => {
    const both = new CalibrationLookup(
      countingDb([await row("c_live", "live"), await row("c_test", "test")]).db,
    );
    expect((await both.forRequest(key(1), request, "svc-1.5.1", "live")).get("q")?.id).toBe("c_live");
    expect((await both.forRequest(key(1), request, "svc-1.5.1", "test")).get("q")?.id).toBe("c_test");
    const testOnly = new CalibrationLookup(countingDb([await row("c_test", "test")]).db);
    expect((await testOnly.forRequest(key(1), request, "svc-1.5.1", "live")).size).toBe(0);
    const liveOnly = new CalibrationLookup(countingDb([await row("c_live", "live")]).db);
    expect((await liveOnly.forRequest(key(1), request, "svc-1.5.1", "test")).get("q")?.id).toBe("c_live");
  });
});
