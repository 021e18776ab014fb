import { describe, expect, it } from "vitest";
import { canonicalJson, requestFingerprint } from "../../../schema/canonical-json";
import { type JsonValue, jsonObject } from "../../../schema/json";

const obj = (...entries: Array<[string, JsonValue]>) => jsonObject(entries);

describe("canonical JSON ('same body means same canonical form')", () => {
  const cases: Array<[string, JsonValue, string]> = [
    ["object keys in original order", obj(["b", 1], ["a", 2]), '{"b":1,"a":2}'],
    ["integer-like keys keep their order", obj(["10", "x"], ["2", "y"]), '{"10":"x","2":"y"}'],
    ["numbers in shortest form", [1.5e3, 0.1, 1e21, -0, 100], "[1500,0.1,1e+21,0,100]"],
    ["strings in NFC", "Cafe\u0301", '"Caf\u00e9"'],
    ["keys in NFC", obj(["e\u0301", true]), '{"\u00e9":true}'],
    ["escapes as JSON.stringify", 'a"\n\u0001', '"a\\"\\n\\u0001"'],
    ["nested, null, empty", obj(["s", obj()], ["a", []], ["n", null]), '{"s":{},"a":[],"n":null}'],
  ];
  it.each(cases)("%s", (_name, value, expected) => {
    expect(canonicalJson(value)).toBe(expected);
  });

  it("'reformatting whitespace keeps the fingerprint; reordering keys changes it'", async () => {
    const a = await requestFingerprint(obj(["x", 1], ["y", 2]));
    const b = await requestFingerprint(obj(["x", 1.0], ["y", 2]));
    const c = await requestFingerprint(obj(["y", 2], ["x", 1]));
    expect(a).toBe(b);
    expect(a).not.toBe(c);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
  });
});
