import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { QUESTION_ID_PATTERN } from "../../../schema/decide";
import { type JsonValue, jsonObject } from "../../../schema/json";
import { checkReferences } from "../../../workers/decide/references";
import { checkUniqueness, foldLabel } from "../../../workers/decide/uniqueness";
import { validateDecideRequest } from "../../../workers/decide/validate";
import { expectApiError } from "../../support/decide-fixtures";

// Fixed seed: CI runs must be deterministic; change it locally to explore.
fc.configureGlobal({ seed: 20261121 });

type Entries = Array<[string, JsonValue]>;
interface Draft {
  top: Entries; // model / fallback
  state: JsonValue;
  questions: Array<[string, Entries | string]>;
}
const toAst = (d: Draft): JsonValue =>
  jsonObject([
    ...d.top,
    ["state", d.state],
    [
      "questions",
      jsonObject(
        d.questions.map(([id, q]) => [id, typeof q === "string" ? q : jsonObject(q)] as [string, JsonValue]),
      ),
    ],
  ]);

const text = (max: number) =>
  fc
    .string({ minLength: 1, maxLength: max, unit: "grapheme" })
    .filter((s) => s.trim() === s && s.trim() !== "" && !s.includes("{"));
const key = fc.string({ minLength: 1, maxLength: 12 });
const scalar = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null));
const json: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    scalar,
    fc.array(tie("v"), { maxLength: 3 }),
    fc.uniqueArray(fc.tuple(key, tie("v")), { maxLength: 3, selector: ([k]) => k }).map((e) => jsonObject(e)),
  ),
})).v;
const state = fc.oneof(
  text(200),
  fc
    .uniqueArray(fc.tuple(key, json), { minLength: 1, maxLength: 4, selector: ([k]) => k })
    .map((e) => jsonObject(e)),
  fc.array(json, { minLength: 1, maxLength: 4 }),
);
const uniqueTexts = (min: number, max: number, len: number) =>
  fc.uniqueArray(text(len), { minLength: min, maxLength: max, selector: foldLabel });
const common = fc.record({
  instructions: text(300),
  criteria: fc.option(fc.oneof(text(100), fc.array(text(50), { minLength: 1, maxLength: 3 })), {
    nil: undefined,
  }),
  min_confidence: fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
});
const question: fc.Arbitrary<Entries> = fc
  .tuple(
    common,
    fc.oneof(
      uniqueTexts(1, 12, 100).chain((labels) =>
        fc
          .array(fc.option(text(100), { nil: null }), { minLength: labels.length, maxLength: labels.length })
          .map(
            (ds): Entries => [
              ["type", "pick"],
              ["options", jsonObject(labels.map((l, i) => [l, ds[i] ?? null]))],
            ],
          ),
      ),
      uniqueTexts(2, 10, 200).map(
        (levels): Entries => [
          ["type", "rate"],
          ["levels", levels],
        ],
      ),
      fc.constant<Entries>([["type", "check"]]),
    ),
  )
  .map(([c, typed]) => {
    const e: Entries = [...typed, ["instructions", c.instructions]];
    if (c.criteria !== undefined) e.push(["criteria", c.criteria]);
    if (c.min_confidence !== undefined) e.push(["min_confidence", c.min_confidence]);
    return e;
  });
const id = fc.stringMatching(QUESTION_ID_PATTERN).filter((s) => !s.startsWith("fault"));
const draft: fc.Arbitrary<Draft> = fc.record({
  top: fc.subarray<[string, JsonValue]>([
    ["model", "svc-1"],
    ["fallback", "never"],
  ]),
  state,
  questions: fc.uniqueArray(fc.tuple(id, question), { minLength: 1, maxLength: 20, selector: ([k]) => k }),
});

describe("property: generated valid requests never fail validation", () => {
  it("steps 3 and 5 accept them and keep question and option order", () => {
    fc.assert(
      fc.property(draft, (d) => {
        const v = validateDecideRequest(toAst(d));
        checkReferences(v);
        checkUniqueness(v);
        expect(v.questions.map((q) => q.id)).toEqual(d.questions.map(([k]) => k));
      }),
      { numRuns: 300, endOnFailure: true },
    );
  });
});

const check: Entries = [
  ["type", "check"],
  ["instructions", "ok?"],
];
const FAULTS: Array<[code: string, param: string, apply: (d: Draft) => void]> = [
  ["unknown_field", "extra", (d) => d.top.push(["extra", 1])],
  [
    "field_not_allowed",
    "questions.fault.levels",
    (d) => d.questions.push(["fault", [...check, ["levels", ["a", "b"]]]]),
  ],
  [
    "missing_field",
    "questions.fault.instructions",
    (d) =>
      d.questions.push([
        "fault",
        [
          ["type", "rate"],
          ["levels", ["a", "b"]],
        ],
      ]),
  ],
  ["invalid_question_id", "questions.9fault", (d) => d.questions.push(["9fault", check])],
  [
    "too_many_questions",
    "questions",
    (d) => {
      for (let i = d.questions.length; i <= 32; i++) d.questions.push([`fault${i}`, check]);
    },
  ],
  [
    "too_many_options",
    "questions.fault.options",
    (d) =>
      d.questions.push([
        "fault",
        [
          ["type", "pick"],
          ["instructions", "w?"],
          ["options", jsonObject(Array.from({ length: 256 }, (_, i) => [`${i}`, null]))],
        ],
      ]),
  ],
  [
    "invalid_levels",
    "questions.fault.levels.1",
    (d) =>
      d.questions.push([
        "fault",
        [
          ["type", "rate"],
          ["instructions", "w?"],
          ["levels", ["a", "x".repeat(201)]],
        ],
      ]),
  ],
  [
    "invalid_min_confidence",
    "questions.fault.min_confidence",
    (d) => d.questions.push(["fault", [...check, ["min_confidence", 1.0001]]]),
  ],
  [
    "invalid_value",
    "questions.fault.type",
    (d) =>
      d.questions.push([
        "fault",
        [
          ["type", "choose"],
          ["instructions", "w?"],
        ],
      ]),
  ],
  ["invalid_type", "questions.fault", (d) => d.questions.push(["fault", "check"])],
];

describe("property: a generated single fault gives its code", () => {
  it.each(FAULTS)("%s", (code, param, apply) => {
    fc.assert(
      fc.property(draft, (d) => {
        apply(d);
        expectApiError(() => validateDecideRequest(toAst(d)), code, param);
      }),
      { numRuns: 60, endOnFailure: true },
    );
  });
});
