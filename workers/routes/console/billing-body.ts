import { getMember, isJsonObject, type JsonValue } from "../../../schema/json";
import { Issues, jsonTypeName } from "../../decide/validate-issues";
import { ApiError } from "../../errors";

/** A body field's rule: required or not, and its check (a message for a wrong type or value, else null). */
export interface FieldRule {
  required: boolean;
  check(value: JsonValue): { code: "invalid_type" | "invalid_value"; message: string } | null;
}

/** An integer from `min` to `max`. */
export const intRule = (min: number, max: number, required = true): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "number"
      ? { code: "invalid_type", message: `Expected an integer, got ${jsonTypeName(v)}.` }
      : Number.isInteger(v) && v >= min && v <= max
        ? null
        : { code: "invalid_value", message: `Must be an integer from ${min} to ${max}.` },
});

/** A string matching `pattern`. */
export const patternRule = (pattern: RegExp, required: boolean): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "string"
      ? { code: "invalid_type", message: `Expected a string, got ${jsonTypeName(v)}.` }
      : pattern.test(v)
        ? null
        : { code: "invalid_value", message: `Must match ${pattern.source}.` },
});

/**
 * Checks a parsed console body against its fields, every violation collected and the one reported chosen by
 * the spec's precedence (`unknown_field`, `missing_field`, `invalid_value`, `invalid_type`). Returns the
 * fields as plain values.
 */
export function checkBody(body: JsonValue, rules: Record<string, FieldRule>): Record<string, JsonValue> {
  if (!isJsonObject(body)) throw new ApiError("invalid_type", { message: "The body must be a JSON object." });
  const issues = new Issues();
  const out: Record<string, JsonValue> = {};
  for (const [k] of body.entries)
    if (!(k in rules)) issues.add("unknown_field", k, `Unknown field \`${k}\`.`);
  for (const [name, rule] of Object.entries(rules)) {
    const v = getMember(body, name);
    if (v === undefined) {
      if (rule.required) issues.add("missing_field", name, `\`${name}\` is required.`);
      continue;
    }
    const bad = rule.check(v);
    if (bad) issues.add(bad.code, name, bad.message);
    else out[name] = v;
  }
  issues.throwFirst();
  return out;
}
