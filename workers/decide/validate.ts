import {
  DEFAULT_MODEL,
  FALLBACK_MODES,
  type FallbackMode,
  MODEL_NAME_PATTERN,
  type ValidatedDecide,
} from "../../schema/decide";
import { isJsonObject, type JsonValue } from "../../schema/json";
import { Issues, jsonTypeName } from "../http/validate-issues";
import { checkQuestions } from "./validate-question";
import { checkState } from "./validate-state";

/**
 * Step 3 of the spec's order of checks (the schema, 422). Walks the whole body, collects every violation and
 * throws the first by `VALIDATION_PRECEDENCE`; among violations of the same code the first in document order
 * wins (a missing field counts as sitting at the end of its object, in the order the spec lists fields).
 * @throws ApiError with the winning code and its dotted `param`.
 */
export function validateDecideRequest(body: JsonValue): ValidatedDecide {
  const issues = new Issues();
  if (!isJsonObject(body)) {
    issues.add("invalid_type", undefined, `The body must be a JSON object, not ${jsonTypeName(body)}.`);
    issues.throwFirst();
  }
  const fields = new Map(isJsonObject(body) ? body.entries : []);
  let questions: ValidatedDecide["questions"] = [];
  // Members are walked in document order so ties inside one code go to the earlier member.
  for (const [key, value] of fields) {
    if (key === "model") checkModel(value, issues);
    else if (key === "fallback") checkFallback(value, issues);
    else if (key === "state") checkState(value, issues);
    else if (key === "questions") questions = checkQuestions(value, issues);
    else issues.add("unknown_field", key, `Unknown field \`${key}\`.`);
  }
  if (!fields.has("state")) checkState(undefined, issues);
  if (!fields.has("questions")) checkQuestions(undefined, issues);

  issues.throwFirst();
  return {
    model: (fields.get("model") as string | undefined) ?? DEFAULT_MODEL,
    state: fields.get("state") as JsonValue,
    questions,
    fallback: (fields.get("fallback") as FallbackMode | undefined) ?? "allow",
  };
}

function checkModel(model: JsonValue, issues: Issues): void {
  if (typeof model !== "string") issues.add("invalid_type", "model", "`model` must be a string.");
  else if (!MODEL_NAME_PATTERN.test(model))
    issues.add("invalid_value", "model", "`model` must match ^svc-[0-9]+(\\.[0-9]+\\.[0-9]+)?$.");
}

function checkFallback(fallback: JsonValue, issues: Issues): void {
  if (typeof fallback !== "string") issues.add("invalid_type", "fallback", "`fallback` must be a string.");
  else if (!(FALLBACK_MODES as readonly string[]).includes(fallback))
    issues.add("invalid_value", "fallback", "`fallback` must be `allow` or `never`.");
}
