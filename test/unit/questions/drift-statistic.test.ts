import { describe, expect, it } from "vitest";
import { questionResourceId } from "../../../schema/questions";
import { tenthOf } from "../../../workers/decide/question-tally";
import { jensenShannonDistance } from "../../../workers/questions/drift-statistic";

describe("the drift statistic: Jensen–Shannon distance, base 2", () => {
  it("0 for the same shares at any volume; 1 for disjoint ones; symmetric", () => {
    expect(jensenShannonDistance([10, 30, 0], [1, 3, 0])).toBe(0);
    expect(jensenShannonDistance([5, 0], [0, 7])).toBe(1);
    const a = [3, 5, 0, 2];
    const b = [1, 1, 6, 2];
    expect(jensenShannonDistance(a, b)).toBeCloseTo(jensenShannonDistance(b, a)!, 12);
  });

  it("empty bins need no smoothing; a seventh of the mass moving to an empty bin is about 0.275", () => {
    const ref = [0, 28, 0, 0, 0, 0, 0, 0, 0, 0];
    const cur = [0, 24, 0, 0, 0, 0, 0, 0, 0, 4];
    expect(jensenShannonDistance(ref, cur)).toBeCloseTo(0.2746, 3);
  });

  it("null when either window has no answers; vectors of other lengths are padded with zeros", () => {
    expect(jensenShannonDistance([], [1])).toBeNull();
    expect(jensenShannonDistance([0, 0], [1, 1])).toBeNull();
    expect(jensenShannonDistance([1], [1, 0])).toBe(0);
  });
});

describe("a question's id and a check's bin", () => {
  it("'qst_' + 26 Crockford base32 characters from the fingerprint, the same for the same fingerprint", () => {
    const hex = "f".repeat(64);
    expect(questionResourceId(hex)).toBe(`qst_${"Z".repeat(26)}`);
    expect(questionResourceId("0".repeat(64))).toBe(`qst_${"0".repeat(26)}`);
    expect(questionResourceId("a".repeat(64))).toMatch(/^qst_[0-9A-HJKMNP-TV-Z]{26}$/);
  });

  it("P(yes) in tenths: [0, 0.1) is bin 0, 1 is in bin 9", () => {
    expect([0, 0.0999, 0.1, 0.55, 0.9, 1].map(tenthOf)).toEqual([0, 0, 1, 5, 9, 9]);
  });
});
