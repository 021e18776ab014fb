import type { Context } from "hono";
import { runFrontDoor } from "../../decide/front-door";
import { checkReferences } from "../../decide/references";
import { resolveModel } from "../../decide/resolve-model";
import { checkTokenLimits } from "../../decide/token-limits";
import { checkUniqueness } from "../../decide/uniqueness";
import { validateDecideRequest } from "../../decide/validate";
import { ApiError } from "../../errors";
import type { AppEnv } from "../../middleware/context";

/**
 * POST /v1/decide. Auth (401) and scope `decide` (403) run as route middleware (see workers/app.ts); the
 * handler then runs the spec's order of checks top to bottom, one step per call.
 */
export async function postDecide(c: Context<AppEnv>): Promise<Response> {
  // 2. idempotency-key header, body size (413), content type (400), strict JSON (400 invalid_json/duplicate_key)
  const { body } = await runFrontDoor(c);
  // 3. schema (422, spec precedence)
  const request = validateDecideRequest(body);
  // 4. model name (404 model_not_found / model_retired)
  const model = resolveModel(request.model, request.fallback);
  // 5. {{path}} references, then label and level uniqueness ignoring case (422)
  checkReferences(request);
  checkUniqueness(request);
  // 6. rendering and token limits (413); the charge is known from here on
  const tokens = checkTokenLimits(request, model.version.limits);
  void tokens;

  // 7–10. idempotency (409), rate limits (429), balance (402), dispatch: added by the money-path step. Until
  // they are wired nothing can serve the request, so it is answered as having no capacity (never a 500).
  throw new ApiError("no_capacity", { message: "No serving capacity is available.", retryAfter: 1 });
}
