import type { JsonValue } from "../../schema/json";
import { checkReferences } from "../../workers/decide/references";
import { resolveModel } from "../../workers/decide/resolve-model";
import { checkTokenLimits } from "../../workers/decide/token-limits";
import { checkUniqueness } from "../../workers/decide/uniqueness";
import { validateDecideRequest } from "../../workers/decide/validate";
import { ApiError } from "../../workers/errors";
import { MAX_BODY_BYTES } from "../../workers/http/body";
import { parseJsonBody } from "../../workers/http/parse-json";

/** How a body ended in the pure steps of POST /v1/decide. */
export type Outcome =
  | { ok: true; value: JsonValue }
  | {
      ok: false;
      step: number;
      status: number;
      code: string;
      param: string | undefined;
      /** The parsed body, when the parser passed it. */
      value: JsonValue | undefined;
    };

/**
 * Runs one request body through the decide pipeline's pure steps, in the spec's order of checks: body size
 * (413), strict JSON (400 `invalid_json` / `duplicate_key`), the schema (422), the model name (404),
 * references and uniqueness (422), rendering and token limits (413). Returns the answer; anything thrown
 * that is not an ApiError propagates (that is a bug).
 */
export function runDecideSteps(bytes: Uint8Array): Outcome {
  let step = 2;
  let parsed: JsonValue | undefined;
  try {
    if (bytes.byteLength > MAX_BODY_BYTES) throw new ApiError("body_too_large");
    parsed = parseJsonBody(bytes);
    step = 3;
    const request = validateDecideRequest(parsed);
    step = 4;
    const model = resolveModel(request.model, request.fallback);
    step = 5;
    checkReferences(request);
    checkUniqueness(request);
    step = 6;
    checkTokenLimits(request, model.version.limits);
    return { ok: true, value: parsed };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    return { ok: false, step, status: err.status, code: err.code, param: err.options.param, value: parsed };
  }
}
