import type { Context } from "hono";
import { renderForEngine } from "../../../schema/render";
import { type MoneyPathInput, runMoneyPath } from "../../decide/admission";
import { recordRejectedCall } from "../../decide/admission-usage";
import { runFrontDoor } from "../../decide/front-door";
import { checkReferences } from "../../decide/references";
import { resolveModel } from "../../decide/resolve-model";
import { checkTokenLimits } from "../../decide/token-limits";
import { checkUniqueness } from "../../decide/uniqueness";
import { validateDecideRequest } from "../../decide/validate";
import type { AppEnv } from "../../middleware/context";

/**
 * POST /v1/decide. Step 1, auth (401) then scope `decide` (403), runs before this handler as the route
 * policy (workers/middleware/route-policy.ts); the handler runs the rest of the spec's order of checks top to
 * bottom, one step per call.
 */
export async function postDecide(c: Context<AppEnv>): Promise<Response> {
  let input: MoneyPathInput;
  try {
    input = await checkRequest(c);
  } catch (err) {
    recordRejectedCall(c, err);
    throw err;
  }
  // 7–10. idempotency (409), rate limits (429), balance (402), dispatch (503/500), the Decision, usage event
  return runMoneyPath(c, input);
}

/** Steps 2–6: everything that can reject the call before it may be charged. */
async function checkRequest(c: Context<AppEnv>): Promise<MoneyPathInput> {
  // 2. idempotency-key header, body size (413), content type (400), strict JSON (400 invalid_json/duplicate_key)
  const { body, idempotencyKey } = await runFrontDoor(c);
  // 3. schema (422, spec precedence)
  const request = validateDecideRequest(body);
  // 4. model name (404 model_not_found / model_retired)
  const model = resolveModel(request.model, request.fallback);
  // 5. {{path}} references, then label and level uniqueness ignoring case (422)
  checkReferences(request);
  checkUniqueness(request);
  // 6. rendering and token limits (413); the charge is known from here on
  const tokens = checkTokenLimits(request, model.version.limits);
  return {
    body,
    idempotencyKey,
    resolved: model,
    engineRequest: renderForEngine(request, model.version.id, c.get("requestId")),
    tokens,
  };
}
