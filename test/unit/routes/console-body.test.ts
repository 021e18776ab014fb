import { describe, expect, it } from "vitest";
import { ApiError } from "../../../workers/errors";
import {
  anyRule,
  booleanRule,
  checkBody,
  emailRule,
  intRule,
  objectRule,
  oneOfRule,
  PLAN_ID,
  parserRule,
  patternRule,
  stringRule,
} from "../../../workers/http/console-body";
import { parseJsonBody } from "../../../workers/http/parse-json";

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

  it("ties go to the order of the rules; a rule's value is yielded (e-mail trimmed and lower-cased)", () => {
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

  it("a nested object's members join the same precedence, named by their path", () => {
    const SETTINGS = {
      log: objectRule("log", { on: booleanRule(), days: intRule(1, 30, false) }),
      mode: oneOfRule(["live", "test"], false),
    };
    expect(failure('{"log":{"on":"yes","days":99}}', SETTINGS)).toEqual({
      code: "invalid_value",
      param: "log.days",
    });
    expect(failure('{"mode":"prod","log":{"x":1}}', SETTINGS)).toEqual({
      code: "unknown_field",
      param: "log.x",
    });
    expect(failure('{"mode":"prod","log":{}}', SETTINGS)).toEqual({ code: "missing_field", param: "log.on" });
    expect(failure('{"mode":7,"log":[]}', SETTINGS)).toEqual({ code: "invalid_type", param: "log" });
    expect(checkBody(parse('{"log":{"on":true,"days":3},"mode":"test"}'), SETTINGS)).toEqual({
      log: { on: true, days: 3 },
      mode: "test",
    });
  });

  it("a parser that throws the spec's 422 becomes a rule: its code and message, its parsed value", () => {
    const even = parserRule((v) => {
      if (typeof v !== "number")
        throw new ApiError("invalid_type", { param: "n", message: "`n` must be a number." });
      if (v % 2) throw new ApiError("invalid_value", { param: "n", message: "`n` must be even." });
      return v / 2;
    });
    expect(failure('{"n":"2","m":"b"}', { n: even, m: oneOfRule(["a"]) })).toEqual({
      code: "invalid_value",
      param: "m",
    });
    expect(failure('{"n":3}', { n: even })).toEqual({ code: "invalid_value", param: "n" });
    expect(checkBody(parse('{"n":4}'), { n: even })).toEqual({ n: 2 });
  });
});
