import type { Context, ErrorHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { ErrorCode } from "../../schema/errors";
import { ApiError, errorBody } from "../errors";
import { stampRateLimitHeaders } from "../limits/headers";
import type { AppEnv } from "./context";
import { newRequestId, stampRequestHeaders } from "./request-id";

/** Renders an ApiError as the spec's envelope with its catalogue status and headers. */
export function renderApiError(c: Context<AppEnv>, err: ApiError): Response {
  let id = c.get("requestId");
  if (!id) {
    id = newRequestId();
    c.set("requestId", id);
  }
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

/** Logs when `code` is not among the declared codes of the route that answered it. */
function checkDeclared(
  c: Context<AppEnv>,
  code: ErrorCode,
  declared: Map<string, ReadonlySet<ErrorCode>>,
): void {
  const route = matchedRoutes(c).find((r) => r.method !== "ALL");
  if (!route) return;
  const codes = declared.get(`${route.method} ${route.path}`);
  if (codes && !codes.has(code))
    console.error(`${UNDECLARED_CODE} route="${route.method} ${route.path}" code=${code}`);
}

/**
 * The app's one error handler: ApiError → its envelope; anything else → bare 500 `internal_error`. A code the
 * route's declaration does not list is logged, so the OpenAPI document cannot silently drift from the runtime.
 */
export function errorHandler(
  declared: Map<string, ReadonlySet<ErrorCode>> = new Map(),
): ErrorHandler<AppEnv> {
  return function onError(err, c) {
    if (err instanceof ApiError) {
      checkDeclared(c, err.code, declared);
      return renderApiError(c, err);
    }
    console.error(`internal_error request_id=${c.get("requestId") ?? "-"} ${describeForLog(err)}`);
    return renderApiError(c, new ApiError("internal_error", { message: "Internal server error." }));
  };
}
