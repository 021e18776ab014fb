import { describe, expect, it } from "vitest";
import { parseJsonBody } from "../../../workers/decide/parse-json";
import { ApiError } from "../../../workers/errors";
import {
  anyRule,
  checkBody,
  emailRule,
  intRule,
  PLAN_ID,
  patternRule,
  stringRule,
} from "../../../workers/routes/console/body";

const parse = (text: string) => parseJsonBody(new TextEncoder().encode(text));
const failure = (text: string, rules: Parameters<typeof checkBody>[1]) => {
  try {
    checkBody(parse(text), rules);
  } catch (e) {
    if (e instanceof ApiError) return { code: e.code, param: e.options.param };
    throw e;
  }
  return null;
};

const SIGN_IN = { email: emailRule(), code: stringRule(1, 64) };

describe("the console body checker (spec: “the code reported is the first in this precedence”)", () => {
  it("unknown_field before missing_field before invalid_value before invalid_type, across fields", () => {
    expect(failure('{"email":1,"code":"","x":1}', SIGN_IN)).toEqual({ code: "unknown_field", param: "x" });
    expect(failure('{"email":1}', SIGN_IN)).toEqual({ code: "missing_field", param: "code" });
    expect(failure('{"email":1,"code":""}', SIGN_IN)).toEqual({ code: "invalid_value", param: "code" });
    expect(failure('{"email":"a@b.co","code":7}', SIGN_IN)).toEqual({ code: "invalid_type", param: "code" });
    expect(failure("[]", SIGN_IN)).toEqual({ code: "invalid_type", param: undefined });
  });

  it("ties go to the body's order; a rule's value is yielded (e-mail trimmed and lower-cased)", () => {
    expect(failure('{"b":"x","a":"y"}', { a: intRule(1, 2), b: intRule(1, 2) })).toEqual({
      code: "invalid_type",
      param: "a",
    });
    expect(checkBody(parse('{"email":" Ann@Example.COM ","code":"1"}'), SIGN_IN)).toEqual({
      email: "ann@example.com",
      code: "1",
    });
    expect(
      checkBody(parse('{"plan":"base","extra":[1]}'), { plan: patternRule(PLAN_ID, true), extra: anyRule() }),
    ).toEqual({ plan: "base", extra: [1] });
    expect(failure('{"__proto__":1}', { plan: patternRule(PLAN_ID, false) })).toEqual({
      code: "unknown_field",
      param: "__proto__",
    });
  });
});
