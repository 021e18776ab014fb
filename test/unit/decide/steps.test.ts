import { describe, expect, it } from "vitest";
import { checkReferences } from "../../../workers/decide/references";
import { resolveModel } from "../../../workers/decide/resolve-model";
import { checkUniqueness } from "../../../workers/decide/uniqueness";
import { validateDecideRequest } from "../../../workers/decide/validate";
import { ast, type Body, baseBody, expectApiError, parse } from "../../support/decide-fixtures";

describe("step 4: model name (404)", () => {
  it("an alias svc-<major> resolves to an exact version; the fallback may stand in", () => {
    const r = resolveModel("svc-1", "allow");
    expect(r.version.id).toBe("svc-1.5.1");
    expect(r.fallback?.id).toBe("svc-fallback-1.0.0");
  });
  it("`never` keeps the request on the GPU path even when `model` is an alias", () => {
    expect(resolveModel("svc-1", "never").fallback).toBeNull();
  });
  it("An exact model version never uses the fallback", () => {
    const r = resolveModel("svc-1.0.0", "allow");
    expect([r.version.id, r.fallback]).toEqual(["svc-1.0.0", null]);
  });
  it.each([
    ["svc-2", "model_not_found"],
    ["svc-0", "model_not_found"],
    ["svc-1.0.1", "model_not_found"],
    ["svc-9.9.9", "model_not_found"],
    ["svc-0.9.0", "model_retired"],
  ])("naming %s gives 404 %s", (name, code) => {
    expectApiError(() => resolveModel(name, "allow"), code, "model");
  });
});

const step5 = (mutate: (b: Body) => void) => {
  const body = baseBody();
  mutate(body);
  const v = validateDecideRequest(ast(body));
  return () => {
    checkReferences(v);
    checkUniqueness(v);
  };
};

describe("step 5: field references, and label and level uniqueness ignoring case (422)", () => {
  it.each<[string, (b: Body) => void, string, string]>([
    [
      "A reference to a field the state lacks gives state_path_not_found",
      (b) => (b.questions.p.instructions = "Is {{order.customer}} VIP?"),
      "state_path_not_found",
      "questions.p.instructions",
    ],
    [
      "numeric segments index arrays (out of range)",
      (b) => (b.questions.p.instructions = "{{order.items.1.sku}}"),
      "state_path_not_found",
      "questions.p.instructions",
    ],
    [
      "numeric segments index arrays (not canonical)",
      (b) => (b.questions.p.instructions = "{{order.items.01.sku}}"),
      "state_path_not_found",
      "questions.p.instructions",
    ],
    [
      "a path through a scalar is not found",
      (b) => (b.questions.p.instructions = "{{note.length}}"),
      "state_path_not_found",
      "questions.p.instructions",
    ],
    [
      "an empty reference names no field",
      (b) => (b.questions.p.instructions = "{{ }}"),
      "state_path_not_found",
      "questions.p.instructions",
    ],
    [
      "references in criteria (string)",
      (b) => (b.questions.r.criteria = "see {{nope}}"),
      "state_path_not_found",
      "questions.r.criteria",
    ],
    [
      "references in criteria (array item)",
      (b) => (b.questions.c.criteria = ["ok", "{{nope}}"]),
      "state_path_not_found",
      "questions.c.criteria.1",
    ],
    [
      "A reference while the state is a string gives state_not_json",
      (b) => (b.state = "plain text"),
      "state_not_json",
      "questions.c.instructions",
    ],
    [
      "Labels must be unique after NFC and lower-casing",
      (b) => (b.questions.p.options = { Yes: null, no: null, yes: null }),
      "duplicate_label",
      "questions.p.options.yes",
    ],
    [
      "Labels unique after NFC (composed vs decomposed é)",
      (b) => (b.questions.p.options = { "caf\u00e9": null, "cafe\u0301": null }),
      "duplicate_label",
      "questions.p.options.cafe\u0301",
    ],
    [
      "levels unique after NFC and lower-casing",
      (b) => (b.questions.r.levels = ["Low", "mid", "LOW"]),
      "invalid_levels",
      "questions.r.levels.2",
    ],
    [
      "references are checked before uniqueness",
      (b) => {
        b.questions.r.levels = ["a", "A"];
        b.questions.c.instructions = "{{x}}";
      },
      "state_path_not_found",
      "questions.c.instructions",
    ],
  ])("%s", (_name, mutate, code, param) => {
    expectApiError(step5(mutate), code, param);
  });

  it.each<[string, (b: Body) => void]>([
    [
      "dotted path into nested objects and arrays",
      (b) => (b.questions.p.instructions = "SKU {{order.items.0.sku}} x{{ order.items.0.qty }}"),
    ],
    ["a reference may name an object", (b) => (b.questions.p.instructions = "{{order}}")],
    ["\\{{ is a literal {{, not a reference", (b) => (b.questions.p.instructions = "literal \\{{nope}}")],
    ["unclosed braces are text", (b) => (b.questions.p.instructions = "a {{ b")],
    ["references in descriptions are plain text", (b) => (b.questions.p.options.shipping = "{{nope}}")],
    [
      "a string state without references is fine",
      (b) => {
        b.state = "text";
        b.questions.c.instructions = "late?";
      },
    ],
  ])("accepts: %s", (_name, mutate) => {
    expect(step5(mutate)).not.toThrow();
  });

  it("numeric segments match object keys exactly", () => {
    const v = validateDecideRequest(
      parse('{"state":{"1":{"10":"x"}},"questions":{"q":{"type":"check","instructions":"{{1.10}}"}}}'),
    );
    expect(() => checkReferences(v)).not.toThrow();
  });
});
