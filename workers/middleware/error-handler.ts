import type { Context, ErrorHandler } from "hono";
import { ApiError, errorBody } from "../errors";
import type { AppEnv } from "./context";
import { stampRateLimitHeaders } from "./rate-limit-headers";
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

/** The app's one error handler: ApiError → its envelope; anything else → bare 500 `internal_error`. */
export const onError: ErrorHandler<AppEnv> = function onError(err, c) {
  if (err instanceof ApiError) return renderApiError(c, err);
  console.error(`internal_error request_id=${c.get("requestId") ?? "-"} ${describeForLog(err)}`);
  return renderApiError(c, new ApiError("internal_error", { message: "Internal server error." }));
};
