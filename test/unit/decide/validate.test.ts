import { describe, expect, it } from "vitest";
import { VALIDATION_PRECEDENCE } from "../../../schema/errors";
import { validateDecideRequest } from "../../../workers/decide/validate";
import { ast, type Body, baseBody, expectApiError, FAULTS, parse } from "../../support/decide-fixtures";

const s = (n: number, ch = "a") => ch.repeat(n);
const nest = (depth: number): unknown => (depth === 1 ? { leaf: 1 } : { a: nest(depth - 1) });
const nestedPath = (depth: number) => ["state", ...Array(depth - 1).fill("a")].join(".");

type Case = [name: string, mutate: (b: Body) => void, code: string, param?: string];

const CASES: Case[] = [
  // unknown_field
  ["Unknown fields are rejected (top level)", (b) => (b.extra = 1), "unknown_field", "extra"],
  [
    "Unknown fields are rejected (question level)",
    (b) => (b.questions.p.hint = "x"),
    "unknown_field",
    "questions.p.hint",
  ],
  // field_not_allowed
  [
    "`options` on a non-pick question gives field_not_allowed",
    (b) => (b.questions.c.options = {}),
    "field_not_allowed",
    "questions.c.options",
  ],
  [
    "`levels` on a non-rate question gives field_not_allowed",
    (b) => (b.questions.p.levels = ["a", "b"]),
    "field_not_allowed",
    "questions.p.levels",
  ],
  [
    "`options` on a rate gives field_not_allowed",
    (b) => (b.questions.r.options = null),
    "field_not_allowed",
    "questions.r.options",
  ],
  // missing_field
  ["`state` is required", (b) => delete b.state, "missing_field", "state"],
  ["`questions` is required", (b) => delete b.questions, "missing_field", "questions"],
  ["question `type` is required", (b) => delete b.questions.p.type, "missing_field", "questions.p.type"],
  [
    "question `instructions` is required",
    (b) => delete b.questions.c.instructions,
    "missing_field",
    "questions.c.instructions",
  ],
  [
    "Pick adds `options` (required)",
    (b) => delete b.questions.p.options,
    "missing_field",
    "questions.p.options",
  ],
  [
    "Rate adds `levels` (required)",
    (b) => delete b.questions.r.levels,
    "missing_field",
    "questions.r.levels",
  ],
  // invalid_question_id
  [
    "Ids match ^[A-Za-z][A-Za-z0-9_-]{0,63}$ (digit first)",
    (b) => (b.questions["1st"] = b.questions.c),
    "invalid_question_id",
    "questions.1st",
  ],
  [
    "Ids match the pattern (dot)",
    (b) => (b.questions["a.b"] = b.questions.c),
    "invalid_question_id",
    "questions.a.b",
  ],
  [
    "Ids match the pattern (65 characters)",
    (b) => (b.questions[s(65, "q")] = b.questions.c),
    "invalid_question_id",
    `questions.${s(65, "q")}`,
  ],
  [
    "Ids match the pattern (empty)",
    (b) => (b.questions[""] = b.questions.c),
    "invalid_question_id",
    "questions.",
  ],
  // too_many_questions
  [
    "1 to 32 questions: 33 give too_many_questions",
    (b) => {
      for (let i = 0; i < 30; i++) b.questions[`x${i}`] = b.questions.c;
    },
    "too_many_questions",
    "questions",
  ],
  // too_many_options
  [
    "A pick has 1 to 255 options: 256 give too_many_options",
    (b) =>
      (b.questions.p.options = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`o${i}`, null]))),
    "too_many_options",
    "questions.p.options",
  ],
  // invalid_levels
  [
    "levels is not 2 to 10 strings (1 level)",
    (b) => (b.questions.r.levels = ["a"]),
    "invalid_levels",
    "questions.r.levels",
  ],
  [
    "levels is not 2 to 10 strings (11 levels)",
    (b) => (b.questions.r.levels = Array.from({ length: 11 }, (_, i) => `l${i}`)),
    "invalid_levels",
    "questions.r.levels",
  ],
  [
    "levels is not 2 to 10 strings (not an array)",
    (b) => (b.questions.r.levels = "low,high"),
    "invalid_levels",
    "questions.r.levels",
  ],
  [
    "levels is not 2 to 10 unique strings (an identical level, at the repeat)",
    (b) => (b.questions.r.levels = ["low", "high", "low"]),
    "invalid_levels",
    "questions.r.levels.2",
  ],
  [
    "levels is not 2 to 10 strings (a number)",
    (b) => (b.questions.r.levels = ["low", 2]),
    "invalid_levels",
    "questions.r.levels.1",
  ],
  [
    "each level 1 to 200 characters (empty)",
    (b) => (b.questions.r.levels = ["low", ""]),
    "invalid_levels",
    "questions.r.levels.1",
  ],
  [
    "each level 1 to 200 characters (201)",
    (b) => (b.questions.r.levels = [s(201), "low"]),
    "invalid_levels",
    "questions.r.levels.0",
  ],
  // invalid_min_confidence
  [
    "min_confidence is not a number from 0 to 1 (above 1)",
    (b) => (b.questions.c.min_confidence = 1.5),
    "invalid_min_confidence",
    "questions.c.min_confidence",
  ],
  [
    "min_confidence is not a number from 0 to 1 (negative)",
    (b) => (b.questions.c.min_confidence = -0.1),
    "invalid_min_confidence",
    "questions.c.min_confidence",
  ],
  [
    "min_confidence is not a number (string)",
    (b) => (b.questions.c.min_confidence = "0.5"),
    "invalid_min_confidence",
    "questions.c.min_confidence",
  ],
  [
    "min_confidence is not a number (null)",
    (b) => (b.questions.p.min_confidence = null),
    "invalid_min_confidence",
    "questions.p.min_confidence",
  ],
  // invalid_value
  [
    "model pattern ^svc-[0-9]+(\\.[0-9]+\\.[0-9]+)?$ (other name)",
    (b) => (b.model = "gpt-4"),
    "invalid_value",
    "model",
  ],
  ["model pattern (two-part version)", (b) => (b.model = "svc-1.0"), "invalid_value", "model"],
  ["model pattern (empty)", (b) => (b.model = ""), "invalid_value", "model"],
  ["fallback is `allow` or `never`", (b) => (b.fallback = "always"), "invalid_value", "fallback"],
  ["String state: 1 to 65,536 characters (empty)", (b) => (b.state = ""), "invalid_value", "state"],
  [
    "String state: at least one non-whitespace character",
    (b) => (b.state = " \n\t\u00a0"),
    "invalid_value",
    "state",
  ],
  ["String state: 1 to 65,536 characters (65,537)", (b) => (b.state = s(65_537)), "invalid_value", "state"],
  ["Object state: at least 1 field", (b) => (b.state = {}), "invalid_value", "state"],
  ["Array state: at least 1 item", (b) => (b.state = []), "invalid_value", "state"],
  ["Nesting is at most 32 levels deep", (b) => (b.state = nest(33)), "invalid_value", nestedPath(33)],
  [
    "JSON keys are 1 to 256 characters (empty key)",
    (b) => (b.state = { a: { "": 1 } }),
    "invalid_value",
    "state.a.",
  ],
  [
    "JSON keys are 1 to 256 characters (257)",
    (b) => (b.state = [{ [s(257)]: 1 }]),
    "invalid_value",
    `state.0.${s(257)}`,
  ],
  ["empty `questions` gives invalid_value", (b) => (b.questions = {}), "invalid_value", "questions"],
  [
    "Any other type value gives invalid_value",
    (b) => (b.questions.p.type = "choose"),
    "invalid_value",
    "questions.p.type",
  ],
  [
    "instructions 1 to 4,000 characters (empty)",
    (b) => (b.questions.p.instructions = ""),
    "invalid_value",
    "questions.p.instructions",
  ],
  [
    "instructions not only whitespace",
    (b) => (b.questions.p.instructions = "  \n "),
    "invalid_value",
    "questions.p.instructions",
  ],
  [
    "instructions 1 to 4,000 characters (4,001)",
    (b) => (b.questions.p.instructions = s(4001)),
    "invalid_value",
    "questions.p.instructions",
  ],
  [
    "criteria string: 1 to 4,000 characters",
    (b) => (b.questions.p.criteria = s(4001)),
    "invalid_value",
    "questions.p.criteria",
  ],
  [
    "criteria not only whitespace",
    (b) => (b.questions.p.criteria = " "),
    "invalid_value",
    "questions.p.criteria",
  ],
  [
    "criteria array: 1 to 20 items (empty)",
    (b) => (b.questions.p.criteria = []),
    "invalid_value",
    "questions.p.criteria",
  ],
  [
    "criteria array: 1 to 20 items (21)",
    (b) => (b.questions.p.criteria = Array(21).fill("x")),
    "invalid_value",
    "questions.p.criteria",
  ],
  [
    "criteria items 1 to 500 characters",
    (b) => (b.questions.p.criteria = ["ok", s(501)]),
    "invalid_value",
    "questions.p.criteria.1",
  ],
  [
    "empty `options` gives invalid_value",
    (b) => (b.questions.p.options = {}),
    "invalid_value",
    "questions.p.options",
  ],
  [
    "A label has no leading or trailing whitespace",
    (b) => (b.questions.p.options = { " yes": null }),
    "invalid_value",
    "questions.p.options. yes",
  ],
  [
    "A label is 1 to 100 characters",
    (b) => (b.questions.p.options = { [s(101)]: null }),
    "invalid_value",
    `questions.p.options.${s(101)}`,
  ],
  [
    "A description is null or 1 to 1,000 characters (empty)",
    (b) => (b.questions.p.options.shipping = ""),
    "invalid_value",
    "questions.p.options.shipping",
  ],
  [
    "A description is not only whitespace",
    (b) => (b.questions.p.options.shipping = "\t"),
    "invalid_value",
    "questions.p.options.shipping",
  ],
  [
    "A description is 1 to 1,000 characters (1,001)",
    (b) => (b.questions.p.options.shipping = s(1001)),
    "invalid_value",
    "questions.p.options.shipping",
  ],
  [
    "For a level, param names it (outer whitespace)",
    (b) => (b.questions.r.levels = ["low", "high "]),
    "invalid_value",
    "questions.r.levels.1",
  ],
  // invalid_type
  ["A state of another JSON type (number) gives invalid_type", (b) => (b.state = 5), "invalid_type", "state"],
  [
    "A state of another JSON type (null) gives invalid_type",
    (b) => (b.state = null),
    "invalid_type",
    "state",
  ],
  [
    "A state of another JSON type (boolean) gives invalid_type",
    (b) => (b.state = true),
    "invalid_type",
    "state",
  ],
  ["`questions` is an object", (b) => (b.questions = [b.questions.p]), "invalid_type", "questions"],
  ["a question is an object", (b) => (b.questions.p = "pick"), "invalid_type", "questions.p"],
  ["`type` is a string", (b) => (b.questions.p.type = 1), "invalid_type", "questions.p.type"],
  [
    "`instructions` is a string",
    (b) => (b.questions.p.instructions = ["x"]),
    "invalid_type",
    "questions.p.instructions",
  ],
  [
    "criteria is a string, array of strings or null",
    (b) => (b.questions.p.criteria = 3),
    "invalid_type",
    "questions.p.criteria",
  ],
  [
    "criteria items are strings",
    (b) => (b.questions.p.criteria = ["a", 1]),
    "invalid_type",
    "questions.p.criteria.1",
  ],
  ["`options` is an object", (b) => (b.questions.p.options = ["a"]), "invalid_type", "questions.p.options"],
  [
    "a description is a string or null",
    (b) => (b.questions.p.options.shipping = 1),
    "invalid_type",
    "questions.p.options.shipping",
  ],
  ["`model` is a string", (b) => (b.model = 1), "invalid_type", "model"],
  ["`fallback` is a string", (b) => (b.fallback = false), "invalid_type", "fallback"],
];

describe("step 3: the schema (422), one case per rule", () => {
  it.each(CASES)("%s", (_name, mutate, code, param) => {
    const body = baseBody();
    mutate(body);
    expectApiError(() => validateDecideRequest(ast(body)), code, param);
  });

  it("a body that is not an object gives invalid_type without param", () => {
    expectApiError(() => validateDecideRequest(ast([1])), "invalid_type", undefined);
  });
});

describe("When a body breaks several schema rules, the code reported is the first in this precedence", () => {
  const pairs = VALIDATION_PRECEDENCE.flatMap((a, i) =>
    VALIDATION_PRECEDENCE.slice(i + 1).map((b) => [a, b]),
  );
  it("covers every pair", () => expect(pairs).toHaveLength(45));
  it.each(pairs)("%s before %s", (a, b) => {
    for (const code of [a, b]) {
      const body = baseBody();
      FAULTS[code]!.apply(body);
      expectApiError(() => validateDecideRequest(ast(body)), code, FAULTS[code]!.param);
    }
    const body = baseBody();
    FAULTS[b]!.apply(body);
    FAULTS[a]!.apply(body);
    expectApiError(() => validateDecideRequest(ast(body)), a, FAULTS[a]!.param);
  });
  it("all ten faults at once report unknown_field", () => {
    const body = baseBody();
    for (const f of Object.values(FAULTS)) f.apply(body);
    expectApiError(() => validateDecideRequest(ast(body)), "unknown_field", "extra");
  });
  it("within one code, the first in document order wins", () => {
    expectApiError(
      () => validateDecideRequest(parse('{"state":"","model":"x","questions":{}}')),
      "invalid_value",
      "state",
    );
    expectApiError(
      () => validateDecideRequest(parse('{"model":"x","state":"","questions":{}}')),
      "invalid_value",
      "model",
    );
    const q = '{"type":"check","criteria":"","instructions":" "}';
    expectApiError(
      () => validateDecideRequest(parse(`{"state":"s","questions":{"a":${q}}}`)),
      "invalid_value",
      "questions.a.criteria",
    );
  });
});

describe("accepted requests", () => {
  it("applies defaults: model svc-1, fallback allow; criteria null equals absent", () => {
    const v = validateDecideRequest(
      parse('{"state":"x","questions":{"q":{"type":"check","instructions":"ok?","criteria":null}}}'),
    );
    expect(v).toEqual({
      model: "svc-1",
      fallback: "allow",
      state: "x",
      questions: [{ id: "q", type: "check", instructions: "ok?", criteria: null }],
    });
  });
  it("Key order is kept: options and questions as ordered arrays (labels 10, 1, 2)", () => {
    const v = validateDecideRequest(
      parse(
        '{"state":[1],"questions":{"z":{"type":"pick","instructions":"n?","options":{"10":null,"1":"one","2":null}},"a":{"type":"check","instructions":"ok?"}}}',
      ),
    );
    expect(v.questions.map((q) => q.id)).toEqual(["z", "a"]);
    const p = v.questions[0]!;
    expect(p.type === "pick" && p.options).toEqual([
      { label: "10", description: null },
      { label: "1", description: "one" },
      { label: "2", description: null },
    ]);
  });
  it.each<[string, (b: Body) => void]>([
    ["String state of exactly 65,536 characters", (b) => (b.state = s(65_536))],
    [
      "characters are code points: 65,536 emoji (131,072 UTF-16 units)",
      (b) => (b.state = "🙂".repeat(65_536)),
    ],
    ["Nesting of exactly 32 levels", (b) => (b.state = nest(32))],
    ["Empty objects and arrays nested inside the state are allowed", (b) => (b.state = { a: {}, b: [] })],
    ["JSON keys of 256 characters", (b) => (b.state = { [s(256)]: 1 })],
    [
      "255 options",
      (b) =>
        (b.questions.p.options = Object.fromEntries(Array.from({ length: 255 }, (_, i) => [`o${i}`, null]))),
    ],
    [
      "32 questions",
      (b) => {
        for (let i = 0; i < 29; i++) b.questions[`x${i}`] = b.questions.c;
      },
    ],
    [
      "min_confidence 0 and 1",
      (b) => {
        b.questions.p.min_confidence = 0;
        b.questions.c.min_confidence = 1;
      },
    ],
    [
      "10 levels of 200 characters",
      (b) => (b.questions.r.levels = Array.from({ length: 10 }, (_, i) => s(199) + i)),
    ],
    ["exact model version", (b) => (b.model = "svc-1.0.0")],
    ["64-character id with - and _", (b) => (b.questions[`A${s(61, "b")}-_`] = b.questions.c)],
    [
      "criteria array of 20 items of 500 characters",
      (b) => (b.questions.c.criteria = Array(20).fill(s(500))),
    ],
  ])("%s", (_name, mutate) => {
    const body = baseBody();
    mutate(body);
    expect(() => validateDecideRequest(ast(body))).not.toThrow();
  });
});
