import { describe, expect, it } from "vitest";
import { MAX_STATE_WORDS_WORK } from "../../../schema/calibrations";
import type { ValidatedQuestion } from "../../../schema/decide";
import { wordCounts } from "../../../schema/learned/features";
import { Rng } from "../../../schema/rng";
import type { Labelled } from "../../../workers/calibrations/fit";
import { fitLabels, stateWordsWork } from "../../../workers/calibrations/fit-question";

const CHECK: ValidatedQuestion = { id: "spam", type: "check", instructions: "Spam?", criteria: null };

/** Mails whose words say spam ("prize") while the version answers at chance. */
function mails(n: number): Labelled[] {
  const rng = new Rng(3);
  return Array.from({ length: n }, (_, i) => {
    const spam = i % 2 === 0;
    const text = `${spam ? "claim your prize now" : "minutes of the meeting"} ${Math.floor(rng.next() * 1000)}`;
    return { p: [0.5, 0.5], y: spam ? 0 : 1, words: wordCounts(text) };
  });
}

describe("issue 49: the state-reading candidate's work bound (`MAX_STATE_WORDS_WORK`)", () => {
  it("work is the states' distinct word buckets, summed, times the weight rows (a check 1; a pick its options)", () => {
    const items = mails(10);
    const buckets = items.reduce((s, e) => s + (e.words?.buckets.length ?? 0), 0);
    expect(stateWordsWork(items, "check", 2)).toBe(buckets);
    expect(stateWordsWork(items, "pick", 7)).toBe(buckets * 7);
    // 1,000 checks of 2,048 words each are inside it (about 3,000 buckets each is the words cap's worst).
    expect(MAX_STATE_WORDS_WORK).toBeGreaterThanOrEqual(1000 * 2048);
  });

  it("within the bound the words are tried (and win where the version is at chance)", () => {
    const labels = { question: CHECK, definition: "{}", items: mails(80) };
    const { fit, metrics } = fitLabels(labels);
    expect(fit.method).toBe("state_words");
    const m = JSON.parse(metrics) as { methods: { method: string }[]; not_tried?: unknown };
    expect(m.methods.map((x) => x.method)).toContain("state_words");
    expect(m).not.toHaveProperty("not_tried");
  });

  it("above it only the maps are tried, and `metrics.not_tried` says why, with the work and the bound", () => {
    const labels = { question: CHECK, definition: "{}", items: mails(80) };
    const work = stateWordsWork(labels.items, "check", 2);
    const { fit, metrics } = fitLabels(labels, work - 1);
    expect(fit.method).not.toBe("state_words");
    expect(fit.model).toBeUndefined();
    const m = JSON.parse(metrics) as { methods: { method: string }[]; not_tried: unknown };
    expect(m.methods.map((x) => x.method)).not.toContain("state_words");
    expect(m.not_tried).toEqual([{ method: "state_words", reason: "work_bound", work, bound: work - 1 }]);
  });
});
