import { cors } from "hono/cors";

/**
 * Cross-origin reads from any origin without credentials (spec: GET /v1/plans): `*`, GET only, preflight
 * answered; `access-control-allow-credentials` is never sent, so browsers never attach cookies.
 */
export function publicCors() {
  return cors({
    origin: "*",
    allowMethods: ["GET", "HEAD", "OPTIONS"],
    allowHeaders: ["x-client-request-id"],
    exposeHeaders: ["x-request-id", "x-client-request-id", "etag", "retry-after"],
    credentials: false,
    maxAge: 600,
  });
}
