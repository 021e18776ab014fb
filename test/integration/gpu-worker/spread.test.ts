import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCalibration } from "../../../gpu-worker/src/calibration";
import { catalogCalibrationPath } from "../../../gpu-worker/src/calibration-pin";
import { getFraming } from "../../../gpu-worker/src/framings";
import { defaultModelPath } from "../../../gpu-worker/src/model-check";
import { openScorer, type Scorer } from "../../../gpu-worker/src/scorer";
import { checkQuestion as check, pickQuestion as pick } from "../../support/score-questions";

// A live request's questions spread over an idle second lane (gpu-worker/src/helper-share.ts) must give the
// bytes the request gives on one lane: every question sees the same prefix at the same positions in either lane.
// Real model (SmolLM2-135M, svc-1.4.0's framing), 2 lanes × 1 thread (the worker's default) against 1 lane.
const framing = getFraming(loadCalibration(catalogCalibrationPath("svc-1.4.0")).framing);
let spread: Scorer;
let single: Scorer;
beforeAll(async () => {
  const opts = { modelPath: defaultModelPath(), threads: 1, sequences: 2, contextSize: 4096 };
  spread = await openScorer({ ...opts, lanes: 2 });
  single = await openScorer({ ...opts, lanes: 1 });
});
afterAll(async () => {
  await spread?.close();
  await single?.close();
});

const README_STATE = "The customer wrote: my parcel arrived broken, I want my money back.";
const README = [
  pick("topic", "What is the message about?", ["refund", "complaint", "praise", "question"]),
  check("refund", "Does the customer ask for a refund?"),
];
// Prompts with common leading words: the prompt tree shares heads, so top-level nodes have children.
const SHARED = [
  ...[1, 2, 4, 5].map((n) => check(`s${n}`, `Is statement number ${n} true?`)),
  pick("city", "Name a city.", ["New York", "New Delhi", "Newcastle upon Tyne", "Paris"]),
  pick("city2", "Name a city in Europe.", ["Paris", "Berlin"]),
  check("long", `Is statement number 3 true? ${"Consider every sentence carefully. ".repeat(6)}`),
];
const SHARED_STATE = Array.from({ length: 4 }, (_, i) => `Lesson ${i}: notes about European cities.`).join(
  "\n",
);

describe("questions spread over an idle lane: the same bytes as on one lane", () => {
  it("the README's two questions and a request of shared heads: scores and meter identical, the second lane used", async () => {
    for (const [state, qs] of [
      [README_STATE, README],
      [SHARED_STATE, SHARED],
    ] as const) {
      const before = spread.spreadRequests?.() ?? 0;
      const two = await spread.rawScores(state, [...qs], framing);
      const one = await single.rawScores(state, [...qs], framing);
      expect(spread.spreadRequests?.()).toBe(before + 1);
      expect(two).toEqual(one);
    }
    expect(single.spreadRequests?.()).toBe(0);
  });

  it("with the other lane busy the request stays on its own lane, and still gives the same bytes", async () => {
    const longState = Array.from({ length: 60 }, (_, i) => `Ticket ${i}: parcel ${1000 + i} is late.`).join(
      " ",
    );
    const busy = spread.rawScores(longState, [check("d", "Was every parcel delivered?")], framing);
    await new Promise((r) => setTimeout(r, 200));
    const before = spread.spreadRequests?.() ?? 0;
    const during = await spread.rawScores(README_STATE, README, framing);
    expect(spread.spreadRequests?.()).toBe(before);
    await busy;
    expect(during).toEqual(await single.rawScores(README_STATE, README, framing));
  });

  it("batch requests (evaluation items) never take a helper lane", async () => {
    const before = spread.spreadRequests?.() ?? 0;
    const batch = await spread.rawScores(README_STATE, README, framing, "batch");
    expect(spread.spreadRequests?.()).toBe(before);
    expect(batch).toEqual(await single.rawScores(README_STATE, README, framing));
  });
});
