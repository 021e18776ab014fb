import type { Context } from "hono";
import { DecideRequestWire, Decision, type ValidatedDecide } from "../../../schema/decide";
import type { ErrorCode } from "../../../schema/errors";
import { renderForEngine } from "../../../schema/render";
import { logContentInBackground } from "../../accounts/content-log";
import { endUsageEvent, recordUsageInBackground, startUsageEvent } from "../../billing/usage-events";
import type { GpuTrace } from "../../clients/gpu-pool";
import type { AppEnv } from "../../context/app-env";
import { inBackground } from "../../context/background";
import { decisionJson } from "../../decide/decision";
import { runMoneyPath } from "../../decide/money-path";
import type { MoneyPathInput } from "../../decide/money-path-types";
import { tallyQuestions } from "../../decide/question-tally";
import { checkReferences } from "../../decide/references";
import { resolveModel } from "../../decide/resolve-model";
import { checkTokenLimits } from "../../decide/token-limits";
import { checkUniqueness } from "../../decide/uniqueness";
import { validateDecideRequest } from "../../decide/validate";
import { DECIDE_BODY_ERRORS } from "../../http/body-errors";
import { runFrontDoor } from "../../http/front-door";
import { publishRateLimit } from "../../limits/headers";
import { keepForReviewInBackground } from "../../reviews/capture";
import type { KeyRecord } from "../../stores/keys";
import { endpoint } from "../define";
import { jsonResponse } from "../responses";

/**
 * Steps 2–6: everything that can reject the call before it may be charged; then the account's calibrations of
 * its questions on that exact version (none looked up for an account that never calibrated).
 */
async function checkRequest(
  c: Context<AppEnv>,
  key: KeyRecord,
): Promise<MoneyPathInput & { request: ValidatedDecide }> {
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
  const calibrations = await c.get("calibrations").forRequest(key, request, model.version.id, key.mode);
  const engineRequest = renderForEngine(request, model.version.id, c.get("requestId"));
  return {
    body,
    idempotencyKey,
    resolved: model,
    engineRequest: calibrations.size > 0 ? { ...engineRequest, distributions: true } : engineRequest,
    tokens,
    calibrations,
    request,
  };
}

/** Codes POST /v1/decide may raise after its auth (also the console playground's). */
export const DECIDE_ERRORS: readonly ErrorCode[] = [
  ...DECIDE_BODY_ERRORS,
  "insufficient_balance",
  "idempotency_key_reused",
  "idempotency_in_progress",
  "requests_per_minute",
  "tokens_per_minute",
  "concurrency",
  "test_daily_quota",
  "no_capacity",
  "upstream_unavailable",
  "billing_unavailable",
];

/**
 * Steps 2–10 for an authenticated caller `key`, recording one usage event however the call ends: the public
 * route's handler, and the console playground's with a test-mode caller.
 */
export async function serveDecide(c: Context<AppEnv>, key: KeyRecord): Promise<Response> {
  const event = startUsageEvent(key, c.get("requestId"), {
    requestId: c.get("clientRequestId"),
    userAgent: c.req.header("user-agent"),
  });
  const gpu: GpuTrace = { attempts: 0, ms: 0 };
  c.set("decideCall", { event, gpu, idempotencyKeySent: c.req.header("idempotency-key") !== undefined });
  try {
    const input = await checkRequest(c, key);
    Object.assign(event, { model: input.resolved.version.id }, input.tokens);
    // 7–10. idempotency (409), rate limits (429), balance (402), dispatch (503/500). A client that goes away
    // cancels dispatch; the refund and the record's release still run to the end (waitUntil).
    const serving = runMoneyPath(
      {
        admission: c.get("admission"),
        ledger: c.get("ledger"),
        refundIntents: c.get("refundIntents"),
        engine: c.get("engine"),
        calibrations: c.get("calibrations"),
        requestId: c.get("requestId"),
        key,
        onRateLimit: (s) => publishRateLimit(c, s),
        clientSignal: c.req.raw.signal,
        gpuTrace: gpu,
      },
      input,
      event,
    );
    inBackground(c, serving);
    const outcome = await serving;
    endUsageEvent(event, null);
    if (outcome.replayed) c.header("idempotent-replayed", "true");
    const json = decisionJson(outcome.decision);
    logContentInBackground(c, key, input.body, json);
    tallyQuestions(c, event, input.request, outcome);
    keepForReviewInBackground(c, key, input, outcome, json);
    c.header("content-type", "application/json");
    return c.body(json, 200);
  } catch (err) {
    endUsageEvent(event, err);
    throw err;
  } finally {
    recordUsageInBackground(c, event);
  }
}

/**
 * POST /v1/decide. Step 1, auth (401) then scope `decide` (403), is the route's auth; the handler runs the
 * rest of the spec's order of checks top to bottom and records one usage event however the call ends.
 */
export const decide = endpoint(
  {
    method: "post",
    path: "/v1/decide",
    operationId: "decide",
    summary: "Answer typed questions about a state",
    auth: { scope: "decide" },
    request: {
      body: { required: true, content: { "application/json": { schema: DecideRequestWire } } },
    },
    responses: { 200: jsonResponse("The Decision; `idempotent-replayed: true` on a replay.", Decision) },
    errors: DECIDE_ERRORS,
  },
  function postDecide(c) {
    return serveDecide(c, c.get("apiKey"));
  },
);
