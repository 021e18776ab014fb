import { describe, expect, it } from "vitest";
import type { Body } from "../../../scripts/fuzz/bodies";
import { judge } from "../../../scripts/fuzz/oracle";
import { runDecideSteps } from "../../../scripts/fuzz/pipeline";
import { fuzzDecide } from "../../../scripts/fuzz/run";

// The CI share of `npm run fuzz` (1,000,000 bodies, docs/reliability.md): a fixed seed, so it is
// deterministic; FUZZ_BODIES overrides the count locally.
const COUNT = Number(process.env.FUZZ_BODIES ?? 10_000);

describe("fuzz: generated bodies through the strict parser and the validator", () => {
  it(`${COUNT} bodies: no exception, every answer a status and code of the spec's catalogue`, () => {
    const report = fuzzDecide({ count: COUNT, seed: 20261121 });
    expect(report.failures).toEqual([]);
    expect(report.exceptions).toBe(0);
    expect(report.bodies).toBe(COUNT);
    // Issue 45 item 9: bodies nested thousands deep are among them, and answered like any other.
    expect(report.byKind.deep).toBeGreaterThan(0);
    // The generators reach every step: parser, schema, model, references, uniqueness, token limits.
    for (const answer of [
      "200",
      "400 invalid_json",
      "400 duplicate_key",
      "422 unknown_field",
      "404 model_not_found",
      "422 state_path_not_found",
      "422 duplicate_label",
      "413 question_too_long",
    ])
      expect(report.byAnswer[answer], answer).toBeGreaterThan(0);
  }, 300_000);
});

describe("fuzz oracle: it would see a bug", () => {
  const body = (text: string, valid = false): Body => ({
    kind: "json",
    bytes: new TextEncoder().encode(text),
    valid,
    duplicated: false,
  });
  const VALID = '{"state":"s","questions":{"q":{"type":"check","instructions":"ok?"}}}';

  it("a code outside the catalogue, a status the spec does not give it, a code the route does not declare", () => {
    const fail = (code: string, status: number) =>
      judge(body("{}"), { ok: false, step: 3, status, code, param: undefined, value: undefined });
    expect(fail("made_up", 422)).toContain("code made_up is not in the spec's catalogue");
    expect(fail("invalid_value", 400)).toContain("invalid_value: status 400, spec 422");
    expect(fail("plan_sold_out", 409)).toContain("plan_sold_out is not declared by POST /v1/decide");
  });

  it("the strict parser disagreeing with JSON.parse; a valid body refused", () => {
    expect(judge(body("[1,]"), { ok: true, value: [1] })).toContain(
      "JSON.parse refuses it but the strict parser gave strict",
    );
    expect(judge(body(VALID), { ok: true, value: { kind: "object", entries: [["state", "t"]] } })).toContain(
      "the strict parser's value differs from JSON.parse's",
    );
    expect(judge(body('"\\ud800"'), { ok: true, value: "\ud800" })[0]).toMatch(/lone surrogate/);
    const refused = {
      ok: false as const,
      step: 3,
      status: 422,
      code: "invalid_value",
      param: "state",
      value: undefined,
    };
    expect(judge(body(VALID, true), refused)).toContain("a valid body was refused: invalid_value state");
  });

  it("and passes the real answers for these bodies", () => {
    for (const text of [VALID, '{"a":1,"a":2}', '"\\ud800"', "", "\u00ff", '{"state":1}'])
      expect(judge(body(text), runDecideSteps(new TextEncoder().encode(text)))).toEqual([]);
  });
});
