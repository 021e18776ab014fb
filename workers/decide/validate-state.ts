import { FIELD_LIMITS } from "../../schema/decide";
import { isJsonObject, type JsonValue } from "../../schema/json";
import { at, codePoints, type Issues, isBlank, jsonTypeName } from "../http/validate-issues";

/**
 * Schema rules of the state (spec "State", "Field limits"). The state itself is level 1 of nesting; every
 * object or array inside adds one level; scalars add none. A key problem is reported at the member's path.
 */
export function checkState(state: JsonValue | undefined, issues: Issues): void {
  if (state === undefined) {
    issues.add("missing_field", "state", "`state` is required.");
    return;
  }
  if (typeof state === "string") {
    const n = codePoints(state);
    if (n < 1 || n > FIELD_LIMITS.stateChars)
      issues.add("invalid_value", "state", "A string `state` must be 1 to 65,536 characters.");
    else if (isBlank(state))
      issues.add("invalid_value", "state", "A string `state` must not be only whitespace.");
    return;
  }
  if (Array.isArray(state)) {
    if (state.length === 0) issues.add("invalid_value", "state", "An array `state` needs at least 1 item.");
  } else if (isJsonObject(state)) {
    if (state.entries.length === 0)
      issues.add("invalid_value", "state", "An object `state` needs at least 1 field.");
  } else {
    issues.add(
      "invalid_type",
      "state",
      `\`state\` must be a string, object or array, not ${jsonTypeName(state)}.`,
    );
    return;
  }
  walk(state, "state", 1, issues);
}

function walk(v: JsonValue, path: string, depth: number, issues: Issues): void {
  if (depth > FIELD_LIMITS.stateDepth) {
    issues.add("invalid_value", path, "`state` is nested deeper than 32 levels.");
    return;
  }
  if (Array.isArray(v)) {
    v.forEach((item, i) => {
      if (typeof item === "object" && item !== null) walk(item, at(path, i), depth + 1, issues);
    });
    return;
  }
  if (!isJsonObject(v)) return;
  for (const [key, value] of v.entries) {
    const n = codePoints(key);
    if (n < 1 || n > FIELD_LIMITS.stateKeyChars)
      issues.add("invalid_value", at(path, key), "Keys in `state` must be 1 to 256 characters.");
    if (typeof value === "object" && value !== null) walk(value, at(path, key), depth + 1, issues);
  }
}
