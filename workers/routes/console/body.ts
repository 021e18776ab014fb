import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { getMember, isJsonObject, type JsonValue, plainJson } from "../../../schema/json";
import { runFrontDoor } from "../../decide/front-door";
import { Issues, jsonTypeName } from "../../decide/validate-issues";
import { ApiError } from "../../errors";
import type { AppEnv } from "../../middleware/context";

/** Codes a console route that reads a JSON body may answer. */
export const BODY_ERRORS: readonly ErrorCode[] = [
  "body_too_large",
  "unsupported_media_type",
  "invalid_json",
  "duplicate_key",
  "unknown_field",
  "missing_field",
  "invalid_type",
  "invalid_value",
];

/** A plan id as bodies carry it (the catalogue decides whether it exists). */
export const PLAN_ID = /^[a-z][a-z0-9_-]{0,31}$/;

type Problem = { code: "invalid_type" | "invalid_value"; message: string };

/** A body field's rule: required or not, its check (a problem, else null), and the value it yields. */
export interface FieldRule {
  required: boolean;
  check(value: JsonValue): Problem | null;
  /** The field's value once checked (default: as plain JSON). */
  parse?(value: JsonValue): unknown;
}

const wrongType = (expected: string, v: JsonValue): Problem => ({
  code: "invalid_type",
  message: `Expected ${expected}, got ${jsonTypeName(v)}.`,
});

/** An integer from `min` to `max`. */
export const intRule = (min: number, max: number, required = true): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "number"
      ? wrongType("an integer", v)
      : Number.isInteger(v) && v >= min && v <= max
        ? null
        : { code: "invalid_value", message: `Must be an integer from ${min} to ${max}.` },
});

/** A string matching `pattern`. */
export const patternRule = (pattern: RegExp, required: boolean): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "string"
      ? wrongType("a string", v)
      : pattern.test(v)
        ? null
        : { code: "invalid_value", message: `Must match ${pattern.source}.` },
});

/** A string of `min`–`max` characters (UTF-16 units, as before the merge). */
export const stringRule = (min: number, max: number, required = true): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "string"
      ? wrongType("a string", v)
      : v.length >= min && v.length <= max
        ? null
        : { code: "invalid_value", message: `Must be ${min} to ${max} characters.` },
});

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** An e-mail address (at most 254 characters, one `@`, a dot in the domain), yielded trimmed and lower-cased. */
export const emailRule = (required = true): FieldRule => ({
  required,
  check: (v) => {
    const length = stringRule(3, 254).check(v);
    if (length) return length;
    return EMAIL.test((v as string).trim())
      ? null
      : { code: "invalid_value", message: "Not an e-mail address." };
  },
  parse: (v) => (v as string).trim().toLowerCase(),
});

/** A field the route checks itself afterwards (present or absent only). */
export const anyRule = (required = false): FieldRule => ({ required, check: () => null });

/**
 * Checks a parsed body against its fields: every violation is collected and the one reported is the first
 * by the spec's precedence (`unknown_field`, `missing_field`, `invalid_value`, `invalid_type`), ties to the
 * body's order. A body that is not an object → 422 `invalid_type`. Returns the checked fields.
 */
export function checkBody(body: JsonValue, rules: Record<string, FieldRule>): Record<string, unknown> {
  if (!isJsonObject(body)) throw new ApiError("invalid_type", { message: "The body must be a JSON object." });
  const issues = new Issues();
  const out: Record<string, unknown> = {};
  for (const [k] of body.entries)
    if (!Object.hasOwn(rules, k)) issues.add("unknown_field", k, `Unknown field \`${k}\`.`);
  for (const [name, rule] of Object.entries(rules)) {
    const v = getMember(body, name);
    if (v === undefined) {
      if (rule.required) issues.add("missing_field", name, `\`${name}\` is required.`);
      continue;
    }
    const bad = rule.check(v);
    if (bad) issues.add(bad.code, name, `\`${name}\`: ${bad.message}`);
    else out[name] = rule.parse ? rule.parse(v) : plainJson(v);
  }
  issues.throwFirst();
  return out;
}

/** A console body read and checked: the parsed body (for fingerprints), its fields, the idempotency key. */
export interface ConsoleBody {
  body: JsonValue;
  fields: Record<string, unknown>;
  idempotencyKey: string | undefined;
}

/**
 * The one body checker of console routes, in the spec's order: `idempotency-key` if sent (400
 * `invalid_header`), size (413), content type (400), strict JSON (400 `invalid_json` / `duplicate_key`),
 * then the fields by precedence (422).
 */
export async function readConsoleBody(
  c: Context<AppEnv>,
  rules: Record<string, FieldRule>,
): Promise<ConsoleBody> {
  const { body, idempotencyKey } = await runFrontDoor(c);
  return { body, fields: checkBody(body, rules), idempotencyKey };
}

/**
 * For routes whose fields need their own parsers: the body read as `readConsoleBody` does, `allowed` and
 * `required` checked by precedence, and the fields handed back as plain values.
 */
export async function readJsonObject(
  c: Context<AppEnv>,
  fields: { allowed: readonly string[]; required?: readonly string[] },
): Promise<Record<string, unknown>> {
  const required = new Set(fields.required ?? []);
  const rules = Object.fromEntries(fields.allowed.map((k) => [k, anyRule(required.has(k))]));
  return (await readConsoleBody(c, rules)).fields;
}

/** A field checked after `readJsonObject`, with a rule; `param` names it in errors (default: its name). */
export function checkField<T = unknown>(
  body: Record<string, unknown>,
  name: string,
  rule: FieldRule,
  param = name,
): T {
  const v = body[name] as JsonValue;
  const bad = rule.check(v);
  if (bad) throw new ApiError(bad.code, { param, message: `\`${name}\`: ${bad.message}` });
  return (rule.parse ? rule.parse(v) : v) as T;
}

/** A string field of `min`–`max` characters (422 `invalid_type` / `invalid_value`). */
export const stringField = (body: Record<string, unknown>, name: string, min: number, max: number) =>
  checkField<string>(body, name, stringRule(min, max));

/** An integer field from `min` to `max`; `param` names it in errors (default: its name). */
export const intField = (
  body: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  param = name,
) => checkField<number>(body, name, intRule(min, max), param);

/** The `email` field, trimmed and lower-cased. */
export const emailField = (body: Record<string, unknown>) => checkField<string>(body, "email", emailRule());
