import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ScoreRequest } from "../../../schema/engine-protocol";
import { isJsonObject, type JsonValue, jsonObject } from "../../../schema/json";
import {
  parseTemplate,
  renderForEngine,
  renderQuestion,
  renderState,
  substitute,
} from "../../../schema/render";
import { validateDecideRequest } from "../../../workers/decide/validate";
import { ast, baseBody, parse } from "../../support/decide-fixtures";

describe("renderState: a JSON state renders as indented YAML-like lines in the caller's key order", () => {
  it.each<[string, string, string]>([
    ["a string state renders as is", '"  hello\\n world "', "  hello\n world "],
    ["scalars", '{"s":"text","n":1.5,"t":true,"z":null,"e":""}', 's: text\nn: 1.5\nt: true\nz: null\ne: ""'],
    ["key order kept, integer-like keys included", '{"10":"a","1":"b"}', "10: a\n1: b"],
    ["nested objects indent by two spaces", '{"a":{"b":{"c":1}}}', "a:\n  b:\n    c: 1"],
    ["arrays as - item", '{"xs":[1,"two",null]}', "xs:\n  - 1\n  - two\n  - null"],
    ["objects inside arrays", '[{"sku":"A","qty":2},{"sku":"B"}]', "- sku: A\n  qty: 2\n- sku: B"],
    ["arrays inside arrays", "[[1,2],[3]]", "- - 1\n  - 2\n- - 3"],
    ["empty containers", '{"o":{},"a":[],"l":[{},[]]}', "o: {}\na: []\nl:\n  - {}\n  - []"],
    [
      "multi-line strings become | blocks",
      '{"m":"l1\\nl2","a":["x\\ny"]}',
      "m: |\n  l1\n  l2\na:\n  - |\n    x\n    y",
    ],
    ["strings verbatim (no quoting)", '{"k":"a: b # c"}', "k: a: b # c"],
  ])("%s", (_name, json, expected) => {
    expect(renderState(parse(json))).toBe(expected);
  });
});

describe("templates", () => {
  it("parses references, whitespace inside braces and the \\{{ escape", () => {
    expect(parseTemplate("a {{ x.0 }} \\{{y}} {{")).toEqual([
      { text: "a " },
      { path: ["x", "0"], raw: "{{ x.0 }}" },
      { text: " " },
      { text: "{{" },
      { text: "y}} {{" },
    ]);
  });
  it("a scalar renders as its text; an object or array as the rendered block", () => {
    const state = parse('{"o":{"id":7,"tags":["a","b"]},"s":"late"}');
    expect(substitute("id={{o.id}} s={{s}} tags:\n{{o.tags}}", state)).toBe("id=7 s=late tags:\n- a\n- b");
  });
});

describe("renderQuestion: instructions, criteria, options or levels with their answer codes", () => {
  const v = validateDecideRequest(ast(baseBody()));
  it.each([
    ["pick", 0, "Which team?\nOptions:\nA. billing\nB. shipping: Parcels"],
    ["rate", 1, "How urgent?\nLevels (lowest first):\nA. low\nB. medium\nC. high"],
    ["check", 2, "Is order 7 late?\nCriteria:\n- Compare dates"],
  ])("%s", (_t, i, expected) => {
    expect(renderQuestion(v.questions[i]!, v.state)).toBe(expected);
  });
  it("a string criteria renders on one line", () => {
    const b = baseBody();
    b.questions.c.criteria = "Use {{note}}";
    const w = validateDecideRequest(ast(b));
    expect(renderQuestion(w.questions[2]!, w.state)).toBe("Is order 7 late?\nCriteria: Use late");
  });
});

describe("renderForEngine", () => {
  it("produces a valid ScoreRequest with references substituted and options in order", () => {
    const v = validateDecideRequest(ast(baseBody()));
    const req = renderForEngine(v, "svc-1.0.0", "req_01");
    expect(ScoreRequest.parse(req)).toEqual(req);
    expect(req.state).toBe(renderState(v.state));
    expect(req.questions[2]).toEqual({
      id: "c",
      type: "check",
      instructions: "Is order 7 late?",
      criteria: ["Compare dates"],
    });
    expect(req.questions[0]).toMatchObject({
      options: [
        { label: "billing", description: null },
        { label: "shipping", description: "Parcels" },
      ],
    });
  });
});

describe("answer codes", () => {
  it("options past the 26th use the two-letter codes of schema/answer-codes.ts, in order", () => {
    const options = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`o${i}`, null]));
    const v = validateDecideRequest(
      ast({ state: "s", questions: { p: { type: "pick", instructions: "w?", options } } }),
    );
    const lines = renderQuestion(v.questions[0]!, v.state).split("\n");
    expect(lines.slice(27, 31)).toEqual(["Z. o25", "AA. o26", "AB. o27", "AC. o28"]);
  });
});

describe("property: rendering a JSON state", () => {
  fc.configureGlobal({ seed: 20261121 });
  const json: fc.Arbitrary<JsonValue> = fc.letrec<{ v: JsonValue }>((tie) => ({
    v: fc.oneof(
      { depthSize: "small" },
      fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null)),
      fc.array(tie("v"), { maxLength: 3 }),
      fc
        .uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), tie("v")), {
          maxLength: 3,
          selector: ([k]) => k,
        })
        .map((e) => jsonObject(e)),
    ),
  })).v;
  it("is deterministic, and every path that exists substitutes without being left as written", () => {
    fc.assert(
      fc.property(json, (state) => {
        expect(renderState(state)).toBe(renderState(state));
        if (!isJsonObject(state)) return;
        for (const [k, v] of state.entries) {
          if (k.includes(".") || k.includes("{") || k.includes("}") || k.trim() !== k || k === "") continue;
          const out = substitute(`{{${k}}}`, state);
          expect(out).toBe(
            typeof v === "object" && v !== null
              ? renderState(v)
              : typeof v === "string"
                ? v === ""
                  ? '""'
                  : v
                : JSON.stringify(v),
          );
        }
      }),
      { numRuns: 200, endOnFailure: true },
    );
  });
});
