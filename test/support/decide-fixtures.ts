import { expect } from "vitest";
import type { JsonValue } from "../../schema/json";
import { parseStrictJson } from "../../schema/strict-json";
import { DEMO_DECIDE } from "../../scripts/stack/demo-decide";
import { ApiError } from "../../workers/errors";

/** Parses JSON text with the production strict parser (keeps key order, e.g. labels "10", "1"). */
export function parse(text: string): JsonValue {
  const r = parseStrictJson(text);
  if (!r.ok) throw new Error(`fixture is not valid JSON: ${r.message}`);
  return r.value;
}

/** A plain JS value as the AST (plain objects reorder integer-like keys: use `parse` for those). */
export const ast = (v: unknown): JsonValue => parse(JSON.stringify(v));

// biome-ignore lint/suspicious/noExplicitAny: fixtures are mutated freely by the tables.
export type Body = Record<string, any>;

/** A valid request exercising every question type and a `{{path}}` reference. */
export function baseBody(): Body {
  return {
    model: "svc-1",
    state: { order: { id: 7, items: [{ sku: "A1", qty: 2 }] }, note: "late" },
    questions: {
      p: { type: "pick", instructions: "Which team?", options: { billing: null, shipping: "Parcels" } },
      r: { type: "rate", instructions: "How urgent?", levels: ["low", "medium", "high"] },
      c: { type: "check", instructions: "Is order {{order.id}} late?", criteria: ["Compare dates"] },
    },
    fallback: "allow",
  };
}

/** Runs `fn` and asserts it throws ApiError with this code and param. */
export function expectApiError(fn: () => unknown, code: string, param?: string): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected ${code}`).toBeInstanceOf(ApiError);
  const err = caught as ApiError;
  expect({ code: err.code, param: err.options.param }).toEqual({ code, param });
}

const manyChecks = (n: number, prefix: string) =>
  Object.fromEntries(
    Array.from({ length: n }, (_, i) => [`${prefix}${i}`, { type: "check", instructions: "ok?" }]),
  );

/**
 * One fault per schema code, each touching a different place of `baseBody()` so that any set of them can be
 * combined; `param` is what the error must name when that fault wins.
 */
export const FAULTS: Record<string, { param: string; apply: (b: Body) => void }> = {
  unknown_field: { param: "extra", apply: (b) => (b.extra = 1) },
  field_not_allowed: { param: "questions.c.options", apply: (b) => (b.questions.c.options = { a: null }) },
  missing_field: { param: "questions.p.instructions", apply: (b) => delete b.questions.p.instructions },
  invalid_question_id: {
    param: "questions.9lives",
    apply: (b) => (b.questions["9lives"] = { type: "check", instructions: "ok?" }),
  },
  too_many_questions: { param: "questions", apply: (b) => Object.assign(b.questions, manyChecks(30, "x")) },
  too_many_options: {
    param: "questions.p.options",
    apply: (b) =>
      (b.questions.p.options = Object.fromEntries(Array.from({ length: 256 }, (_, i) => [`o${i}`, null]))),
  },
  invalid_levels: { param: "questions.r.levels", apply: (b) => (b.questions.r.levels = ["only"]) },
  invalid_min_confidence: {
    param: "questions.c.min_confidence",
    apply: (b) => (b.questions.c.min_confidence = 2),
  },
  invalid_value: { param: "fallback", apply: (b) => (b.fallback = "sometimes") },
  invalid_type: { param: "state", apply: (b) => (b.state = 5) },
};

/** The README's first decide (scripts/stack/demo-decide.ts: a topic pick and the refund check) with `key`. */
export function readmeDecide(baseUrl: string, key: string): Promise<Response> {
  return fetch(`${baseUrl}/v1/decide`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(DEMO_DECIDE),
  });
}
