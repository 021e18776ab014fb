import type { Context, ErrorHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { ErrorCode } from "../../schema/errors";
import type { AppEnv } from "../context/app-env";
import { ApiError, errorBody } from "../errors";
import { stampRateLimitHeaders } from "../limits/headers";
import { logEvent } from "../observability/log";
import { newRequestId, stampRequestHeaders } from "./request-id";

/** Renders an ApiError as the spec's envelope with its catalogue status and headers. */
export function renderApiError(c: Context<AppEnv>, err: ApiError): Response {
  let id = c.get("requestId");
  if (!id) {
    id = newRequestId();
    c.set("requestId", id);
  }
  c.set("errorCode", err.code);
  stampRequestHeaders(c);
  stampRateLimitHeaders(c);
  if (err.options.retryAfter !== undefined)
    c.header("retry-after", String(Math.ceil(err.options.retryAfter)));
  for (const [k, v] of Object.entries(err.options.headers ?? {})) c.header(k, v);
  return c.json(errorBody(err, id), err.status as 400);
}

const SECRETISH = [/svc_(live|test|ses)_[0-9A-Za-z_-]+/g, /\/\/[^/\s:@]+:[^/\s@]+@/g, /Bearer\s+\S+/gi];

/** One line about an unexpected error, with anything secret-looking removed. */
function describeForLog(err: unknown): string {
  const name = err instanceof Error ? err.name : typeof err;
  let msg = err instanceof Error ? err.message : String(err);
  for (const re of SECRETISH) msg = msg.replace(re, "[redacted]");
  return `${name}: ${msg.split("\n")[0]?.slice(0, 200) ?? ""}`;
}

/** Log marker of an error code the matched route's declaration does not list (tests fail on it). */
export const UNDECLARED_CODE = "undeclared_error_code";

/** False (and a log line) when `code` is not among the declared codes of the route that answered it. */
function isDeclared(
  c: Context<AppEnv>,
  code: ErrorCode,
  declared: Map<string, ReadonlySet<ErrorCode>>,
): boolean {
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  const codes = route && declared.get(`${route.method} ${route.path}`);
  if (!route || !codes || codes.has(code)) return true;
  logEvent("error", UNDECLARED_CODE, { route: `${route.method} ${route.path}`, code });
  return false;
}

/**
 * The app's one error handler: ApiError → its envelope; anything else → bare 500 `internal_error`. A code the
 * route's declaration does not list is logged (and, in the test tiers, answered 500), so the OpenAPI document
 * cannot silently drift from the runtime.
 */
export function errorHandler(
  declared: Map<string, ReadonlySet<ErrorCode>> = new Map(),
): ErrorHandler<AppEnv> {
  return function onError(err, c) {
    // Under STRICT_ERROR_DECLARATIONS (the test tiers) an undeclared code fails the request, so the test does.
    if (
      err instanceof ApiError &&
      (isDeclared(c, err.code, declared) || c.env.STRICT_ERROR_DECLARATIONS !== "1")
    )
      return renderApiError(c, err);
    logEvent("error", "internal_error", {
      request_id: c.get("requestId") ?? null,
      error: describeForLog(err),
    });
    return renderApiError(c, new ApiError("internal_error", { message: "Internal server error." }));
  };
}
