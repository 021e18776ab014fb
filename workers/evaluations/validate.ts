import {
  DEFAULT_MODEL,
  MODEL_NAME_PATTERN,
  type TokenCounts,
  type ValidatedDecide,
} from "../../schema/decide";
import { isJsonObject, type JsonObject, type JsonValue, jsonObject } from "../../schema/json";
import { jsonText } from "../../schema/json-text";
import { checkReferences } from "../decide/references";
import { type ResolvedModel, resolveModel } from "../decide/resolve-model";
import { checkTokenLimits } from "../decide/token-limits";
import { checkUniqueness } from "../decide/uniqueness";
import { validateDecideRequest } from "../decide/validate";
import { checkQuestions } from "../decide/validate-question";
import { checkState } from "../decide/validate-state";
import { ApiError } from "../errors";
import { codePoints, Issues, isBlank, jsonTypeName } from "../http/validate-issues";
import type { Expected } from "./metrics";

export const MAX_ITEMS = 1000;
export const NAME_MAX = 200;

/** One validated item: its decide request (no model, no fallback), expected labels and token counts. */
export interface ValidatedItem {
  request: ValidatedDecide;
  /** `{state, questions}` as JSON text, key order as sent. */
  requestText: string;
  expected: Record<string, Expected>;
  expectedText: string;
  tokens: TokenCounts;
}

export interface ValidatedEvaluation {
  name: string;
  model: ResolvedModel;
  items: ValidatedItem[];
}

/**
 * The body of POST /v1/evaluations after the front door (size, content type, strict JSON). Top-level fields
 * first (422 by the spec's precedence, then the model's 404); then item by item in document order, each by
 * the decide order of checks — schema plus `expected` (422), references and label uniqueness (422), token
 * limits on the pinned version (413) — the first failing item deciding the answer, `param` the dotted path
 * into the body (`items.3.questions.q.instructions`).
 */
export function validateEvaluationBody(body: JsonValue): ValidatedEvaluation {
  const issues = new Issues();
  if (!isJsonObject(body)) {
    issues.add("invalid_type", undefined, `The body must be a JSON object, not ${jsonTypeName(body)}.`);
    issues.throwFirst();
  }
  const fields = new Map((body as JsonObject).entries);
  for (const [key, value] of fields) {
    if (key === "name") checkName(value, issues);
    else if (key === "model") checkModelName(value, issues);
    else if (key === "items") checkItemList(value, issues);
    else issues.add("unknown_field", key, `Unknown field \`${key}\`.`);
  }
  if (!fields.has("name")) issues.add("missing_field", "name", "`name` is required.");
  if (!fields.has("items")) issues.add("missing_field", "items", "`items` is required.");
  issues.throwFirst();
  const model = resolveModel((fields.get("model") as string | undefined) ?? DEFAULT_MODEL, "never");
  const items = (fields.get("items") as JsonValue[]).map((item, i) => validateItem(item, i, model));
  return { name: fields.get("name") as string, model, items };
}

function checkName(v: JsonValue, issues: Issues): void {
  if (typeof v !== "string") issues.add("invalid_type", "name", "`name` must be a string.");
  else if (codePoints(v) < 1 || codePoints(v) > NAME_MAX || isBlank(v))
    issues.add("invalid_value", "name", `\`name\` must be 1 to ${NAME_MAX} characters, not only whitespace.`);
}

function checkModelName(v: JsonValue, issues: Issues): void {
  if (typeof v !== "string") issues.add("invalid_type", "model", "`model` must be a string.");
  else if (!MODEL_NAME_PATTERN.test(v))
    issues.add("invalid_value", "model", "`model` must match ^svc-[0-9]+(\\.[0-9]+\\.[0-9]+)?$.");
}

function checkItemList(v: JsonValue, issues: Issues): void {
  if (!Array.isArray(v)) issues.add("invalid_type", "items", "`items` must be an array.");
  else if (v.length < 1 || v.length > MAX_ITEMS)
    issues.add("invalid_value", "items", `\`items\` must hold 1 to ${MAX_ITEMS} items.`);
}

/** Re-raises an item's ApiError with `param` under `items.<i>` (a JSON pointer never reaches here). */
function underItem<T>(i: number, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const param = err.options.param === undefined ? `items.${i}` : `items.${i}.${err.options.param}`;
    throw new ApiError(err.code, { param, message: err.message });
  }
}

function validateItem(item: JsonValue, i: number, model: ResolvedModel): ValidatedItem {
  return underItem(i, () => {
    const issues = new Issues();
    if (!isJsonObject(item)) {
      issues.add("invalid_type", undefined, `An item must be a JSON object, not ${jsonTypeName(item)}.`);
      issues.throwFirst();
    }
    const fields = new Map((item as JsonObject).entries);
    for (const [key, value] of fields) {
      if (key === "state") checkState(value, issues);
      else if (key === "questions") checkQuestions(value, issues);
      else if (key === "expected") continue;
      else if (key === "model" || key === "fallback")
        issues.add(
          "field_not_allowed",
          key,
          `\`${key}\` is set once for the whole evaluation, not per item.`,
        );
      else issues.add("unknown_field", key, `Unknown field \`${key}\`.`);
    }
    if (!fields.has("state")) checkState(undefined, issues);
    if (!fields.has("questions")) checkQuestions(undefined, issues);
    const questions = fields.get("questions");
    const expected = checkExpectedShape(fields.get("expected"), questions, issues);
    issues.throwFirst();
    const decide = jsonObject([
      ["state", fields.get("state") as JsonValue],
      ["questions", questions as JsonValue],
    ]);
    const request = { ...validateDecideRequest(decide), model: model.version.id, fallback: "never" as const };
    const labels = checkExpectedLabels(request, expected!, issues);
    issues.throwFirst();
    checkReferences(request);
    checkUniqueness(request);
    const tokens = checkTokenLimits(request, model.version.limits);
    return {
      request,
      requestText: jsonText(decide),
      expected: labels,
      expectedText: jsonText(expected!),
      tokens,
    };
  });
}

/** `expected`: an object naming every question of the item once, and nothing else. */
function checkExpectedShape(
  v: JsonValue | undefined,
  questions: JsonValue | undefined,
  issues: Issues,
): JsonObject | undefined {
  if (v === undefined) {
    issues.add("missing_field", "expected", "`expected` is required: the right answer to each question.");
    return undefined;
  }
  if (!isJsonObject(v)) {
    issues.add("invalid_type", "expected", `\`expected\` must be an object, not ${jsonTypeName(v)}.`);
    return undefined;
  }
  if (!isJsonObject(questions)) return v;
  const ids = new Set(questions.entries.map(([id]) => id));
  for (const [id] of v.entries)
    if (!ids.has(id)) issues.add("unknown_field", `expected.${id}`, `No question \`${id}\` in this item.`);
  const given = new Set(v.entries.map(([id]) => id));
  for (const id of ids)
    if (!given.has(id))
      issues.add("missing_field", `expected.${id}`, `\`expected\` lacks question \`${id}\`.`);
  return v;
}

/** Each expected value fits its question: a pick's label, a rate's level, a check's true / false. */
function checkExpectedLabels(
  request: ValidatedDecide,
  expected: JsonObject,
  issues: Issues,
): Record<string, Expected> {
  const out: Record<string, Expected> = {};
  const given = new Map(expected.entries);
  for (const q of request.questions) {
    const v = given.get(q.id)!;
    const param = `expected.${q.id}`;
    if (q.type === "check") {
      if (typeof v === "boolean") out[q.id] = v;
      else issues.add("invalid_value", param, "A check's expected answer is `true` or `false`.");
    } else {
      const allowed = q.type === "pick" ? q.options.map((o) => o.label) : q.levels;
      if (typeof v === "string" && allowed.includes(v)) out[q.id] = v;
      else
        issues.add(
          "invalid_value",
          param,
          q.type === "pick"
            ? "A pick's expected answer is one of its option labels."
            : "A rate's expected answer is one of its levels.",
        );
    }
  }
  return out;
}
