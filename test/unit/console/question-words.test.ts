import { describe, expect, it } from "vitest";
import {
  driftVerdict,
  MIN_DRIFT_ANSWERS,
  mixBands,
  type QuestionBucket,
  type QuestionDrift,
  STATISTIC_TEXT,
  versionChanges,
} from "../../../console/question-words";
import { DRIFT_STATISTIC, MIN_DRIFT_ANSWERS as SCHEMA_MIN } from "../../../schema/questions";

const bucket = (model: string | null, count: number, over: Partial<QuestionBucket> = {}): QuestionBucket => ({
  start: "2026-11-01T00:00:00Z",
  model,
  models: model ? { [model]: count } : {},
  count,
  mix: null,
  mean_confidence: null,
  abstain_rate: null,
  ...over,
});

const drift = (over: Partial<QuestionDrift>): QuestionDrift => ({
  model: "svc-1.5.1",
  statistic: DRIFT_STATISTIC,
  value: null,
  threshold: 0.1,
  reference: {
    start: "2026-11-10T00:00:00Z",
    end: "2026-11-17T00:00:00Z",
    count: 70,
    source: "first_week",
    complete: true,
  },
  current: { start: "2026-11-21T20:00:00Z", end: "2026-11-28T20:00:00Z", count: 5 },
  drifted: false,
  ...over,
});

describe("the console's words for questions (issue 52)", () => {
  it("says the API's statistic and minimum in words, the same as the schema's", () => {
    expect(STATISTIC_TEXT[DRIFT_STATISTIC]).toBe("Jensen–Shannon distance");
    expect(MIN_DRIFT_ANSWERS).toBe(SCHEMA_MIN);
  });

  it("'the answer mix (share per option or level; for checks … its histogram in ten bins)', empty buckets as gaps", () => {
    const pick = {
      type: "pick" as const,
      instructions: "Team?",
      options: { billing: null, returns: "Back" },
    };
    const data = [bucket("v", 4, { mix: { billing: 0.25, returns: 0.75 } }), bucket(null, 0)];
    expect(mixBands(pick, data)).toEqual({
      labels: ["billing", "returns"],
      shares: [
        [0.25, null],
        [0.75, null],
      ],
    });
    const rate = { type: "rate" as const, instructions: "Mood?", levels: ["bad", "ok", "good"] };
    expect(mixBands(rate, [bucket("v", 2, { mix: [0, 0.5, 0.5] })]).shares).toEqual([[0], [0.5], [0.5]]);
    const histogram = [0, 0, 0, 0, 0, 0, 0, 0, 0.5, 0.5];
    const check = mixBands({ type: "check", instructions: "Spam?" }, [bucket("v", 2, { histogram })]);
    expect(check.labels).toHaveLength(10);
    expect(check.labels[9]).toBe("0.9–1.0");
    expect(check.shares.map((s) => s[0])).toEqual(histogram);
  });

  it("'the version per bucket … with version changes marked': a change is where the answering version differs", () => {
    const data = [
      bucket("a", 3),
      bucket(null, 0),
      bucket("a", 1),
      bucket("b", 2),
      bucket("b", 2),
      bucket("a", 1),
    ];
    expect(versionChanges(data).map((c) => [c.index, c.from, c.to])).toEqual([
      [3, "a", "b"],
      [5, "b", "a"],
    ]);
  });

  it("the verdict: drifted above the threshold, steady at or below it, else why it is not measured", () => {
    expect(driftVerdict(drift({ value: 0.263, drifted: true }))).toEqual({
      kind: "drifted",
      text: "Drifted: 0.263 is above the threshold 0.1 on svc-1.5.1.",
    });
    expect(driftVerdict(drift({ value: 0.1 })).kind).toBe("steady");
    expect(driftVerdict(drift({})).text).toBe(
      "Not measured yet: each week needs at least 20 answers of svc-1.5.1 (reference 70, last 7 days 5).",
    );
    const running = drift({ reference: { ...drift({}).reference, complete: false } });
    expect(driftVerdict(running).text).toBe(
      "Not measured yet: the reference week of svc-1.5.1 runs until 2026-11-17.",
    );
    const reset = drift({ model: null, reference: { ...drift({}).reference, source: "reset" } });
    expect(driftVerdict(reset).text).toMatch(/^Not measured yet: the new reference/);
  });
});
