import { describe, expect, it } from "vitest";
import {
  CALIBRATION_LEADS,
  METHOD_TEXT,
  methodReason,
  questionSummary,
  statusText,
} from "../../../console/calibration-words";
import { ERRORS } from "../../../schema/errors";

describe("the console's words for calibrations", () => {
  it("each refusal of a fit is said in words (codes of the one catalogue)", () => {
    for (const code of ["too_few_labels", "calibration_no_gain", "evaluation_outdated"]) {
      expect(CALIBRATION_LEADS[code], code).toMatch(/^[A-Z].*\.$/);
      expect(ERRORS[code as keyof typeof ERRORS], code).toBeDefined();
    }
  });

  it("a question as its type and instructions, cut to the length asked", () => {
    expect(questionSummary({ type: "check", instructions: "Does the customer ask for a refund?" })).toBe(
      "check: Does the customer ask for a refund?",
    );
    expect(questionSummary({ type: "pick", instructions: "x".repeat(100) }, 10)).toBe(
      `pick: ${"x".repeat(9)}…`,
    );
  });

  it("the Calibrate view says which method won and why (issue 49: the one with the better held-out NLL wins)", () => {
    expect(Object.keys(METHOD_TEXT)).toEqual(["temperature", "temperature_bias", "state_words"]);
    expect(methodReason("state_words", true)).toMatch(/^Chosen: the state's words.*lowest held-out NLL/);
    expect(methodReason("temperature_bias", true)).toMatch(
      /^Chosen: temperature and bias, the map with the lowest held-out NLL.*one paired standard error\.$/,
    );
    expect(methodReason("temperature", false)).toContain("The state's words were not tried");
    // Above the fit's work bound (metrics.not_tried) the view says so, with both numbers.
    expect(methodReason("temperature_bias", false, { work: 3_400_000, bound: 3_000_000 })).toContain(
      "hold 3,400,000 word buckets × weight rows, above the fit's bound of 3,000,000",
    );
  });

  it("issue 49: the Calibrations list shows a fitting one as fitting, a failed one with why, the rest as before", () => {
    expect(statusText({ status: "active", error: null }, "x")).toBe("active");
    expect(statusText({ status: "fitting", error: null }, "x")).toBe("fitting…");
    expect(statusText({ status: "failed", error: { code: "calibration_no_gain" } }, "x")).toBe(
      `failed: ${CALIBRATION_LEADS.calibration_no_gain}`,
    );
    expect(statusText({ status: "failed", error: { code: "internal_error" } }, "x")).toBe(
      "failed: internal_error",
    );
    expect(statusText({ status: "inactive", error: null }, "2026-11-28 20:00 UTC")).toBe(
      "inactive since 2026-11-28 20:00 UTC",
    );
  });
});
