import type { Context } from "hono";
import { runFrontDoor } from "../../decide/front-door";
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
  void request;

  // 4–10. model (404), references (422), tokens (413), idempotency (409), rate limits (429), balance (402),
  // dispatch: added by the decide-contract and money-path steps. Until they are wired nothing can serve the
  // request, so it is answered as having no capacity (never a 500).
  throw new ApiError("no_capacity", { message: "No serving capacity is available.", retryAfter: 1 });
}
