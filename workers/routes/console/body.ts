import type { Context } from "hono";
import type { ErrorCode } from "../../../schema/errors";
import { isJsonObject, plainJson } from "../../../schema/json";
import { readBodyLimited } from "../../decide/body";
import { checkContentType } from "../../decide/content-type";
import { parseJsonBody } from "../../decide/parse-json";
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

/**
 * A console body: size (413), content type (400), strict JSON (400 `invalid_json` / `duplicate_key`), a JSON
 * object (422 `invalid_type`), then by the spec's precedence `unknown_field` before `missing_field`.
 */
export async function readJsonObject(
  c: Context<AppEnv>,
  fields: { allowed: readonly string[]; required?: readonly string[] },
): Promise<Record<string, unknown>> {
  const bytes = await readBodyLimited(c.req.raw);
  checkContentType(c.req.header("content-type"), bytes.byteLength);
  const parsed = parseJsonBody(bytes);
  if (!isJsonObject(parsed))
    throw new ApiError("invalid_type", { message: "The body must be a JSON object." });
  const body = plainJson(parsed) as Record<string, unknown>;
  const unknown = Object.keys(body).find((k) => !fields.allowed.includes(k));
  if (unknown !== undefined)
    throw new ApiError("unknown_field", { param: unknown, message: `Unknown field \`${unknown}\`.` });
  const missing = (fields.required ?? []).find((k) => !(k in body));
  if (missing !== undefined)
    throw new ApiError("missing_field", { param: missing, message: `\`${missing}\` is required.` });
  return body;
}

/** A string field of `min`–`max` characters (422 `invalid_type` / `invalid_value`). */
export function stringField(body: Record<string, unknown>, name: string, min: number, max: number): string {
  const v = body[name];
  if (typeof v !== "string")
    throw new ApiError("invalid_type", { param: name, message: `\`${name}\` must be a string.` });
  if (v.length < min || v.length > max)
    throw new ApiError("invalid_value", {
      param: name,
      message: `\`${name}\` must be ${min} to ${max} characters.`,
    });
  return v;
}

/** An integer field from `min` to `max`; `param` names it in errors (default: its name). */
export function intField(
  body: Record<string, unknown>,
  name: string,
  min: number,
  max: number,
  param = name,
): number {
  const v = body[name];
  if (typeof v !== "number")
    throw new ApiError("invalid_type", { param, message: `\`${name}\` must be a number.` });
  if (!Number.isInteger(v) || v < min || v > max)
    throw new ApiError("invalid_value", {
      param,
      message: `\`${name}\` must be an integer from ${min} to ${max}.`,
    });
  return v;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The `email` field, trimmed and lower-cased (at most 254 characters, one `@`, a dot in the domain). */
export function emailField(body: Record<string, unknown>): string {
  const email = stringField(body, "email", 3, 254).trim().toLowerCase();
  if (!EMAIL.test(email))
    throw new ApiError("invalid_value", { param: "email", message: "`email` is not an e-mail address." });
  return email;
}
