import type { Context } from "hono";
import type { ErrorCode } from "../../schema/errors";
import { getMember, isJsonObject, type JsonObject, type JsonValue, plainJson } from "../../schema/json";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";
import { runFrontDoor } from "./front-door";
import { Issues, jsonTypeName } from "./validate-issues";

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

/**
 * A field's problem; `named` when the message already names the field, `param` when it lies inside the field
 * (a nested object's member).
 */
type Problem = {
  code: "unknown_field" | "missing_field" | "invalid_type" | "invalid_value";
  message: string;
  named?: boolean;
  param?: string;
};

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

/** A boolean. */
export const booleanRule = (required = true): FieldRule => ({
  required,
  check: (v) => (typeof v === "boolean" ? null : wrongType("a boolean", v)),
});

/** One of `values`. */
export const oneOfRule = (values: readonly string[], required = true): FieldRule => ({
  required,
  check: (v) =>
    typeof v !== "string"
      ? wrongType("a string", v)
      : values.includes(v)
        ? null
        : { code: "invalid_value", message: `Must be one of ${values.join(", ")}.` },
});

/**
 * A rule from a parser that throws the spec's 422 `invalid_type` / `invalid_value` for its field (its message
 * kept); the parsed value is what the field yields.
 */
export const parserRule = (parse: (v: unknown) => unknown, required = false): FieldRule => ({
  required,
  check: (v) => {
    try {
      parse(plainJson(v));
      return null;
    } catch (e) {
      if (e instanceof ApiError && (e.code === "invalid_type" || e.code === "invalid_value"))
        return { code: e.code, message: e.message, named: true };
      throw e;
    }
  },
  parse: (v) => parse(plainJson(v)),
});

/** A field the route checks itself afterwards (present or absent only). */
export const anyRule = (required = false): FieldRule => ({ required, check: () => null });

/**
 * Checks a parsed body against its fields: every violation is collected and the one reported is the first
 * by the spec's precedence (`unknown_field`, `missing_field`, `invalid_value`, `invalid_type`), ties to the
 * order of the rules. A body that is not an object → 422 `invalid_type`. Returns the checked fields.
 */
export function checkBody(body: JsonValue, rules: Record<string, FieldRule>): Record<string, unknown> {
  if (!isJsonObject(body)) throw new ApiError("invalid_type", { message: "The body must be a JSON object." });
  const { issues, out } = checkMembers(body, rules, "");
  issues.throwFirst();
  return out;
}

function checkMembers(
  body: JsonObject,
  rules: Record<string, FieldRule>,
  prefix: string,
): { issues: Issues; out: Record<string, unknown> } {
  const issues = new Issues();
  const out: Record<string, unknown> = {};
  for (const [k] of body.entries)
    if (!Object.hasOwn(rules, k)) issues.add("unknown_field", prefix + k, `Unknown field \`${prefix}${k}\`.`);
  for (const [name, rule] of Object.entries(rules)) {
    const param = prefix + name;
    const v = getMember(body, name);
    if (v === undefined) {
      if (rule.required) issues.add("missing_field", param, `\`${param}\` is required.`);
      continue;
    }
    const bad = rule.check(v);
    if (bad)
      issues.add(bad.code, bad.param ?? param, bad.named ? bad.message : `\`${param}\`: ${bad.message}`);
    else out[name] = rule.parse ? rule.parse(v) : plainJson(v);
  }
  return { issues, out };
}

/** A nested object with its own member rules; its first problem by precedence names the member's path. */
export const objectRule = (name: string, rules: Record<string, FieldRule>, required = true): FieldRule => ({
  required,
  check: (v) => {
    if (!isJsonObject(v)) return wrongType("an object", v);
    const first = checkMembers(v, rules, `${name}.`).issues.first();
    return first
      ? { code: first.code as Problem["code"], message: first.message, named: true, param: first.param }
      : null;
  },
  parse: (v) => checkMembers(v as JsonObject, rules, `${name}.`).out,
});

/**
 * The top-level field names of each console body as its route last read it (`METHOD /path`): what `npm run
 * fuzz` puts its deeply nested values under.
 */
export const BODY_FIELDS = new Map<string, readonly string[]>();

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
  BODY_FIELDS.set(`${c.req.method} ${c.req.routePath}`, Object.keys(rules));
  const { body, idempotencyKey } = await runFrontDoor(c);
  return { body, fields: checkBody(body, rules), idempotencyKey };
}
