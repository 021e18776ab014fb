import { CUSTOM_ID_MAX } from "../../schema/batches";
import type { TokenCounts } from "../../schema/decide";
import { isJsonObject, type JsonObject, type JsonValue } from "../../schema/json";
import { jsonText } from "../../schema/json-text";
import { checkReferences } from "../decide/references";
import { resolveModel } from "../decide/resolve-model";
import { checkTokenLimits } from "../decide/token-limits";
import { checkUniqueness } from "../decide/uniqueness";
import { validateDecideRequest } from "../decide/validate";
import { ApiError } from "../errors";
import { MAX_BODY_BYTES } from "../http/body";
import { parseJsonBody } from "../http/parse-json";
import { codePoints, Issues, jsonTypeName } from "../http/validate-issues";

/** A line's bytes may hold a decide body of 256 KiB plus its `custom_id` and the line's own punctuation. */
export const MAX_LINE_BYTES = MAX_BODY_BYTES + 1024;

/** One validated line as the runner reads it back from R2: its id, pinned exact version, tokens and body. */
export interface StoredLine {
  custom_id: string;
  /** The exact version pinned at upload (an alias resolves once, for the whole batch's life). */
  model: string;
  /** The model name the line asked for (default `svc-1`). */
  requested: string;
  tokens: TokenCounts;
  /** The decide body as JSON text, key order as sent. */
  body: string;
}

/**
 * Re-raises a line's ApiError with `param` under `lines.<n>` (from 0; a JSON pointer is appended as it is) and the
 * message naming the line as an editor counts it (from 1).
 */
export function underLine<T>(n: number, run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const inner = err.options.param;
    const param =
      inner === undefined
        ? `lines.${n}`
        : inner.startsWith("/")
          ? `lines.${n}${inner}`
          : `lines.${n}.${inner}`;
    throw new ApiError(err.code, { ...err.options, param, message: `Line ${n + 1}: ${err.message}` });
  }
}

/** Re-raises an ApiError of the body with `param` under `body`. */
function underBody<T>(run: () => T): T {
  try {
    return run();
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const inner = err.options.param;
    const param = inner === undefined ? "body" : inner.startsWith("/") ? `/body${inner}` : `body.${inner}`;
    throw new ApiError(err.code, { ...err.options, param });
  }
}

/**
 * One line of an upload, validated with exactly a decide's rules and order of checks on its `body`: strict JSON
 * (400), the line's own fields (422: `custom_id` 1–64 characters and unique in the batch, `body` an object), then
 * the body's schema (422), model (404), references and uniqueness (422), token limits (413). A line's `fallback`
 * is accepted and has no effect: batches run on the GPU pool only. Throws the line's own error, `param` under
 * `lines.<n>`.
 */
export function validateLine(bytes: Uint8Array, n: number, seen: Set<string>): StoredLine {
  return underLine(n, () => {
    if (bytes.byteLength > MAX_LINE_BYTES)
      throw new ApiError("body_too_large", {
        message: `The line is over ${MAX_LINE_BYTES} bytes (a decide body may be 256 KiB).`,
      });
    const line = parseJsonBody(bytes);
    const issues = new Issues();
    if (!isJsonObject(line)) {
      issues.add("invalid_type", undefined, `A line must be a JSON object, not ${jsonTypeName(line)}.`);
      issues.throwFirst();
    }
    const fields = new Map((line as JsonObject).entries);
    for (const [key, value] of fields) {
      if (key === "custom_id") checkCustomId(value, issues);
      else if (key === "body") {
        if (!isJsonObject(value))
          issues.add(
            "invalid_type",
            "body",
            `\`body\` must be a decide request object, not ${jsonTypeName(value)}.`,
          );
      } else issues.add("unknown_field", key, `Unknown field \`${key}\`.`);
    }
    if (!fields.has("custom_id")) issues.add("missing_field", "custom_id", "`custom_id` is required.");
    if (!fields.has("body")) issues.add("missing_field", "body", "`body` is required: a decide request.");
    issues.throwFirst();
    const customId = fields.get("custom_id") as string;
    if (seen.has(customId))
      throw new ApiError("duplicate_custom_id", {
        param: "custom_id",
        message: `\`custom_id\` \`${customId}\` is already used by an earlier line.`,
      });
    const body = fields.get("body") as JsonObject;
    const stored = underBody(() => validateBody(body));
    seen.add(customId);
    return { custom_id: customId, ...stored };
  });
}

function checkCustomId(v: JsonValue, issues: Issues): void {
  if (typeof v !== "string") issues.add("invalid_type", "custom_id", "`custom_id` must be a string.");
  else if (codePoints(v) < 1 || codePoints(v) > CUSTOM_ID_MAX)
    issues.add("invalid_value", "custom_id", `\`custom_id\` must be 1 to ${CUSTOM_ID_MAX} characters.`);
}

/** Steps 3–6 of a decide on the body; the model pinned to its exact version, GPU only. */
function validateBody(body: JsonObject): Omit<StoredLine, "custom_id"> {
  const request = validateDecideRequest(body);
  const model = resolveModel(request.model, "never");
  checkReferences(request);
  checkUniqueness(request);
  const tokens = checkTokenLimits(request, model.version.limits);
  return { model: model.version.id, requested: request.model, tokens, body: jsonText(body) };
}
