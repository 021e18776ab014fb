import {
  FIELD_LIMITS,
  type PickOption,
  QUESTION_ID_PATTERN,
  QUESTION_TYPES,
  type QuestionType,
  type ValidatedQuestion,
} from "../../schema/decide";
import { isJsonObject, type JsonValue } from "../../schema/json";
import {
  at,
  codePoints,
  hasOuterWhitespace,
  type Issues,
  isBlank,
  jsonTypeName,
} from "../http/validate-issues";

/** Schema rules of `questions` (spec "DecideRequest", "Question", "Field limits"); returns them in order. */
export function checkQuestions(v: JsonValue | undefined, issues: Issues): ValidatedQuestion[] {
  if (v === undefined) {
    issues.add("missing_field", "questions", "`questions` is required.");
    return [];
  }
  if (!isJsonObject(v)) {
    issues.add("invalid_type", "questions", `\`questions\` must be an object, not ${jsonTypeName(v)}.`);
    return [];
  }
  if (v.entries.length === 0)
    issues.add("invalid_value", "questions", "`questions` needs at least 1 question.");
  if (v.entries.length > FIELD_LIMITS.questions)
    issues.add("too_many_questions", "questions", "At most 32 questions per request.");
  const out: ValidatedQuestion[] = [];
  for (const [id, q] of v.entries) {
    const path = at("questions", id);
    if (!QUESTION_ID_PATTERN.test(id))
      issues.add("invalid_question_id", path, "Question ids match ^[A-Za-z][A-Za-z0-9_-]{0,63}$.");
    const question = checkQuestion(id, q, path, issues);
    if (question) out.push(question);
  }
  return out;
}

function checkQuestion(
  id: string,
  q: JsonValue,
  path: string,
  issues: Issues,
): ValidatedQuestion | undefined {
  if (!isJsonObject(q)) {
    issues.add("invalid_type", path, `A question must be an object, not ${jsonTypeName(q)}.`);
    return undefined;
  }
  const fields = new Map(q.entries);
  const rawType = fields.get("type");
  const type = (QUESTION_TYPES as readonly unknown[]).includes(rawType)
    ? (rawType as QuestionType)
    : undefined;
  let instructions = "";
  let criteria: string | string[] | null = null;
  let minConfidence: number | undefined;
  let options: PickOption[] = [];
  let levels: string[] = [];
  // Document order, so that ties inside one code go to the earlier member.
  for (const [key, value] of q.entries) {
    const p = at(path, key);
    if (key === "type") checkType(value, p, issues);
    else if (key === "instructions") instructions = checkText(value, p, issues) ?? "";
    else if (key === "criteria") criteria = checkCriteria(value, p, issues);
    else if (key === "min_confidence") minConfidence = checkMinConfidence(value, p, issues);
    else if (key === "options") {
      // Allowance is judged only against a known type; an unknown type is its own invalid_value.
      if (type === "pick") options = checkOptions(value, p, issues);
      else if (type) issues.add("field_not_allowed", p, "`options` is allowed only on a pick.");
    } else if (key === "levels") {
      if (type === "rate") levels = checkLevels(value, p, issues);
      else if (type) issues.add("field_not_allowed", p, "`levels` is allowed only on a rate.");
    } else issues.add("unknown_field", p, `Unknown field \`${key}\`.`);
  }
  if (!fields.has("type")) issues.add("missing_field", at(path, "type"), "`type` is required.");
  if (!fields.has("instructions"))
    issues.add("missing_field", at(path, "instructions"), "`instructions` is required.");
  if (type === "pick" && !fields.has("options"))
    issues.add("missing_field", at(path, "options"), "A pick needs `options`.");
  if (type === "rate" && !fields.has("levels"))
    issues.add("missing_field", at(path, "levels"), "A rate needs `levels`.");

  const base = { id, instructions, criteria };
  const common = minConfidence === undefined ? base : { ...base, min_confidence: minConfidence };
  if (type === "pick") return { ...common, type, options };
  if (type === "rate") return { ...common, type, levels };
  if (type === "check") return { ...common, type };
  return undefined;
}

function checkType(v: JsonValue, p: string, issues: Issues): void {
  if (typeof v !== "string") issues.add("invalid_type", p, "`type` must be a string.");
  else if (!(QUESTION_TYPES as readonly string[]).includes(v))
    issues.add("invalid_value", p, "`type` must be `pick`, `rate` or `check`.");
}

/** A required, non-blank string of 1 to max characters. */
function checkText(v: JsonValue, path: string, issues: Issues, max = FIELD_LIMITS.instructionsChars) {
  if (typeof v !== "string") issues.add("invalid_type", path, `\`${path}\` must be a string.`);
  else if (!checkLength(v, max, path, issues)) return undefined;
  else return v;
  return undefined;
}

function checkLength(v: string, max: number, path: string, issues: Issues): boolean {
  const n = codePoints(v);
  if (n < 1 || n > max)
    issues.add("invalid_value", path, `Must be 1 to ${max.toLocaleString("en")} characters.`);
  else if (isBlank(v)) issues.add("invalid_value", path, "Must not be only whitespace.");
  else return true;
  return false;
}

function checkCriteria(v: JsonValue, path: string, issues: Issues): string | string[] | null {
  if (v === null) return null;
  if (typeof v === "string") {
    checkLength(v, FIELD_LIMITS.criteriaChars, path, issues);
    return v;
  }
  if (!Array.isArray(v)) {
    issues.add("invalid_type", path, "`criteria` must be a string, an array of strings or null.");
    return null;
  }
  if (v.length < 1 || v.length > FIELD_LIMITS.criteriaItems)
    issues.add("invalid_value", path, "`criteria` must have 1 to 20 items.");
  const items: string[] = [];
  v.forEach((item, i) => {
    if (typeof item !== "string") issues.add("invalid_type", at(path, i), "Criteria items must be strings.");
    else {
      checkLength(item, FIELD_LIMITS.criteriaItemChars, at(path, i), issues);
      items.push(item);
    }
  });
  return items;
}

function checkMinConfidence(v: JsonValue, path: string, issues: Issues): number | undefined {
  if (typeof v === "number" && v >= 0 && v <= 1) return v;
  issues.add("invalid_min_confidence", path, "`min_confidence` must be a number from 0 to 1.");
  return undefined;
}

function checkOptions(v: JsonValue, path: string, issues: Issues): PickOption[] {
  if (!isJsonObject(v)) {
    issues.add("invalid_type", path, "`options` must be an object of label to description or null.");
    return [];
  }
  if (v.entries.length === 0) issues.add("invalid_value", path, "`options` needs at least 1 option.");
  if (v.entries.length > FIELD_LIMITS.options) issues.add("too_many_options", path, "At most 255 options.");
  return v.entries.map(([label, d]) => {
    const p = at(path, label);
    const n = codePoints(label);
    if (n < 1 || n > FIELD_LIMITS.labelChars)
      issues.add("invalid_value", p, "A label must be 1 to 100 characters.");
    else if (hasOuterWhitespace(label))
      issues.add("invalid_value", p, "A label must not start or end with whitespace.");
    if (d === null) return { label, description: null };
    if (typeof d !== "string") issues.add("invalid_type", p, "A description must be a string or null.");
    else checkLength(d, FIELD_LIMITS.descriptionChars, p, issues);
    return { label, description: typeof d === "string" ? d : null };
  });
}

function checkLevels(v: JsonValue, path: string, issues: Issues): string[] {
  const message = "`levels` must be 2 to 10 unique strings of 1 to 200 characters.";
  if (!Array.isArray(v)) {
    issues.add("invalid_levels", path, message);
    return [];
  }
  if (v.length < FIELD_LIMITS.minLevels || v.length > FIELD_LIMITS.maxLevels)
    issues.add("invalid_levels", path, message);
  const levels: string[] = [];
  v.forEach((level, i) => {
    const p = at(path, i);
    if (typeof level !== "string") {
      issues.add("invalid_levels", p, message);
      return;
    }
    const n = codePoints(level);
    if (n < 1 || n > FIELD_LIMITS.levelChars) issues.add("invalid_levels", p, message);
    else if (levels.includes(level)) issues.add("invalid_levels", p, message);
    else if (hasOuterWhitespace(level))
      issues.add("invalid_value", p, "A level must not start or end with whitespace.");
    levels.push(level);
  });
  return levels;
}
