import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../context/app-env";
import {
  idempotencyOutcome,
  logRequestLine,
  type RequestLineFields,
  usageFields,
} from "../observability/request-line";

/** The route of a request: its operation id, else the matched `METHOD /path` (console pages), else null. */
function routeOf(c: Context<AppEnv>): string | null {
  const operationId = c.get("operationId");
  if (operationId) return operationId;
  const route = matchedRoutes(c).findLast((r) => r.method !== "ALL");
  return route ? `${route.method} ${route.path}` : null;
}

/** The request's line from what the context holds once the response is there (a decide's usage event first). */
export function requestLineOf(c: Context<AppEnv>, latencyMs: number, status: number): RequestLineFields {
  const call = c.get("decideCall");
  const key = c.get("apiKey");
  const fields: RequestLineFields = {
    request_id: c.get("requestId"),
    route: routeOf(c),
    status,
    error_code: c.get("errorCode") ?? null,
    key_id: key?.id ?? null,
    account_id: key?.accountId ?? c.get("session")?.accountId ?? null,
    mode: key?.mode ?? null,
    model: null,
    served_by: null,
    input_tokens: null,
    charge_micro_cents: null,
    latency_ms: latencyMs,
    gpu_ms: null,
    gpu_attempts: null,
    idempotency: null,
    priority: "live",
  };
  if (!call) return fields;
  return {
    ...fields,
    ...usageFields(call.event),
    // The response is the truth (an undeclared code becomes a 500 after the event was ended).
    status,
    error_code: fields.error_code,
    gpu_ms: call.gpu.attempts > 0 ? call.gpu.ms : null,
    gpu_attempts: call.gpu.attempts,
    idempotency: idempotencyOutcome(call.idempotencyKeySent, call.event),
  };
}

/**
 * One structured line per request (issue 43), after the response is known, plus its Analytics Engine data point
 * when `METRICS` is bound. Runs right after `request-id`; reads what the route left on the context (operation
 * id, error code, a decide's usage event and GPU trace), never a header or body.
 */
export function requestLog(): MiddlewareHandler<AppEnv> {
  return async function requestLogMiddleware(c, next) {
    const startedAt = Date.now();
    let status: number | undefined;
    try {
      await next();
      status = c.res.status;
    } finally {
      // A thrown non-Error escapes onError until request-id wraps it: that request answers 500.
      logRequestLine(requestLineOf(c, Date.now() - startedAt, status ?? 500), c.env?.METRICS);
    }
  };
}
