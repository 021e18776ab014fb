import { describe, expect, it } from "vitest";
import { V1_LIMITS } from "../../../schema/models";
import { renderQuestion, renderState } from "../../../schema/render";
import { countTokens } from "../../../schema/tokenizer";
import { checkTokenLimits } from "../../../workers/decide/token-limits";
import { validateDecideRequest } from "../../../workers/decide/validate";
import { ast, type Body, expectApiError } from "../../support/decide-fixtures";

// Every digit is its own token in the svc-1 tokenizer (pre-tokenizer splits \p{N}), so n digits = n tokens.
const digits = (n: number) => "7".repeat(n);
const check = (instructions: string) => ({ type: "check", instructions });
const run = (body: Body) => checkTokenLimits(validateDecideRequest(ast(body)), V1_LIMITS);

describe("step 6: rendering and token limits (413), counted with the pinned tokenizer", () => {
  it("n digits are n tokens (the premise of these cases)", () => {
    expect(countTokens(digits(1000))).toBe(1000);
  });

  it.each<[string, Body, string, string | undefined]>([
    [
      "Rendered state over 16,384 tokens gives state_too_long",
      { state: digits(16_385), questions: { q: check("ok?") } },
      "state_too_long",
      "state",
    ],
    [
      "A rendered question over 4,096 tokens gives question_too_long",
      { state: "s", questions: { a: check("ok?"), q: { ...check(digits(4000)), criteria: [digits(100)] } } },
      "question_too_long",
      "questions.q",
    ],
    [
      "All questions together over 4,096 give request_too_long with param questions",
      { state: "s", questions: { a: check(digits(2100)), b: check(digits(2100)) } },
      "request_too_long",
      "questions",
    ],
    [
      "Request over 16,384 billable tokens gives request_too_long (no param)",
      { state: digits(16_000), questions: { a: check(digits(1000)) } },
      "request_too_long",
      undefined,
    ],
    [
      "state before question",
      { state: digits(16_385), questions: { q: { ...check(digits(4000)), criteria: [digits(200)] } } },
      "state_too_long",
      "state",
    ],
    [
      "one question before all questions",
      {
        state: "s",
        questions: { a: check(digits(3000)), q: { ...check(digits(4000)), criteria: [digits(200)] } },
      },
      "question_too_long",
      "questions.q",
    ],
    [
      "all questions before the total",
      { state: digits(16_000), questions: { a: check(digits(2100)), b: check(digits(2100)) } },
      "request_too_long",
      "questions",
    ],
  ])("%s", (_name, body, code, param) => {
    expectApiError(() => run(body), code, param);
  });

  it("returns the billed counts: state_tokens + question_tokens = input_tokens", () => {
    const body = {
      state: { order: { id: 7 } },
      questions: { a: check("Is {{order.id}} late?"), b: check("ok?") },
    };
    const v = validateDecideRequest(ast(body));
    const counts = checkTokenLimits(v, V1_LIMITS);
    const q = v.questions.map((x) => countTokens(renderQuestion(x, v.state)));
    expect(counts).toEqual({
      state_tokens: countTokens(renderState(v.state)),
      question_tokens: q[0]! + q[1]!,
      input_tokens: countTokens(renderState(v.state)) + q[0]! + q[1]!,
    });
    expect(counts.state_tokens).toBeGreaterThanOrEqual(1);
  });

  it("exactly at the limits passes: 16,384 total with 4,096 in questions", () => {
    const v = validateDecideRequest(ast({ state: digits(12_288), questions: { a: check(digits(4000)) } }));
    const qTokens = countTokens(renderQuestion(v.questions[0]!, v.state));
    const filler = 4096 - qTokens;
    const body = { state: digits(12_288), questions: { a: check(digits(4000)), b: check(digits(filler)) } };
    const counts = run(body);
    expect(counts).toEqual({ state_tokens: 12_288, question_tokens: 4096, input_tokens: 16_384 });
  });
});
