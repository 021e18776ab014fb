import { describe, expect, it } from "vitest";
import { lineErrorText, lineOf, WEBHOOK_EVENTS } from "../../../console/batch-words";
import { WEBHOOK_EVENT_TYPES } from "../../../schema/batches";

describe("the Batches page words an upload's error by its line, counted from 1 (issue 42)", () => {
  it("`lines.3.body.questions.q` is line 4, at body.questions.q; a JSON pointer the same; `lines` alone is the whole file", () => {
    expect(lineOf("lines.3.body.questions.q")).toEqual({ line: 4, path: "body.questions.q" });
    expect(lineOf("lines.0")).toEqual({ line: 1, path: null });
    expect(lineOf("lines.12/body/state")).toEqual({ line: 13, path: "body/state" });
    expect(lineOf("lines")).toBeNull();
    expect(lineOf("content-type")).toBeNull();
    expect(lineOf(undefined)).toBeNull();
  });

  it("the API's own `Line <n>:` (counted from 0) is said once, counted from 1; a whole-file error is not a line's", () => {
    expect(
      lineErrorText({
        code: "invalid_value",
        message: "Line 3: `type` must be one of check, pick, rate.",
        param: "lines.3.body.questions.q.type",
      }),
    ).toBe("Line 4: `type` must be one of check, pick, rate. (body.questions.q.type) [invalid_value]");
    expect(
      lineErrorText({
        code: "batch_too_many_lines",
        message: "A batch holds at most 100,000 lines.",
        param: "lines",
      }),
    ).toBeNull();
  });
});

describe("the Settings page names every event the webhook endpoint is called with", () => {
  it("the console's list is schema/batches.ts's WEBHOOK_EVENT_TYPES, in order", () => {
    expect([...WEBHOOK_EVENTS]).toEqual([...WEBHOOK_EVENT_TYPES]);
  });
});
