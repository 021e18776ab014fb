import { describe, expect, it } from "vitest";
import {
  isPlainKey,
  LABEL_KEYS,
  LOOP_TEXT,
  labelChoices,
  labelText,
  REVIEW_LEADS,
  SKIP_KEY,
  whenText,
} from "../../../console/review-words";
import { ERRORS } from "../../../schema/errors";

describe("the review page's keys and words (issue 51: one keystroke per option, level or yes/no, plus skip)", () => {
  it("a check is y / n; options and levels are 1–9 then letters, never the skip key", () => {
    expect(labelChoices({ type: "check", instructions: "?" }).map((c) => [c.key, c.value])).toEqual([
      ["y", true],
      ["n", false],
    ]);
    const options = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`o${i}`, null]));
    const keys = labelChoices({ type: "pick", instructions: "?", options }).map((c) => c.key);
    expect(keys.slice(0, 10)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "9", "a"]);
    expect(keys).not.toContain(SKIP_KEY);
    expect(new Set(keys.filter((k) => k !== null)).size).toBe(LABEL_KEYS.length);
    expect(keys.slice(LABEL_KEYS.length).every((k) => k === null)).toBe(true);
    expect(
      labelChoices({ type: "rate", instructions: "?", levels: ["low", "high"] }).map((c) => c.value),
    ).toEqual(["low", "high"]);
  });

  it("keys typed in a text field or with a modifier are not labels", () => {
    const plain = { key: "y", ctrlKey: false, altKey: false, metaKey: false, targetTag: "BUTTON" };
    expect(isPlainKey(plain)).toBe(true);
    expect(isPlainKey({ ...plain, targetTag: "TEXTAREA" })).toBe(false);
    expect(isPlainKey({ ...plain, ctrlKey: true })).toBe(false);
    expect(isPlainKey({ ...plain, key: "Enter" })).toBe(false);
  });

  it("what a rule keeps, its loop and its refusals are said in words (codes of the one catalogue)", () => {
    expect(whenText({ abstained: true, below_confidence: 0.8, sample_rate: 0.01 })).toBe(
      "abstained, confidence below 0.8, and 1 % of the rest",
    );
    expect(whenText({ abstained: false, below_confidence: null, sample_rate: 0.5 })).toBe(
      "50 % of the decides",
    );
    expect(labelText(true)).toBe("yes");
    expect(labelText(null)).toBe("—");
    for (const s of ["none", "evaluating", "fitting", "fitted", "applied", "failed"] as const)
      expect(LOOP_TEXT[s]).toMatch(/\.$/);
    for (const code of Object.keys(REVIEW_LEADS))
      expect(ERRORS[code as keyof typeof ERRORS], code).toBeDefined();
  });
});
