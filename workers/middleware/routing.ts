import type { Hono, NotFoundHandler } from "hono";
import type { RouterRoute } from "hono/types";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";
import { renderApiError } from "./error-handler";

// Hono's router result: [[ [handler, route], params ][], paramStash?]
type MatchResult = [[[unknown, RouterRoute], unknown][], unknown?];

/** Methods the app registered for `path` (middleware-only matches excluded), derived from the router. */
export function allowedMethods(app: Hono<AppEnv>, path: string): string[] {
  const candidates = new Set(app.routes.map((r) => r.method).filter((m) => m !== "ALL"));
  const allowed: string[] = [];
  for (const method of candidates) {
    const result = app.router.match(method, path) as unknown as MatchResult;
    if (result[0].some(([[, route]]) => route.method === method)) allowed.push(method);
  }
  if (allowed.includes("GET") && !allowed.includes("HEAD")) allowed.push("HEAD"); // Hono answers HEAD via GET
  return allowed;
}

/**
 * Not-found handler: a path some route has (with another method) → 405 `method_not_allowed` with `allow`;
 * otherwise 404 `route_not_found`. Nothing to keep in sync by hand: it reads the app's router.
 */
export function routeNotFound(app: Hono<AppEnv>): NotFoundHandler<AppEnv> {
  return function routeNotFoundHandler(c) {
    const allowed = allowedMethods(app, c.req.path);
    if (allowed.length > 0) {
      return renderApiError(
        c,
        new ApiError("method_not_allowed", {
          message: `${c.req.method} is not allowed on ${c.req.path}.`,
          headers: { allow: allowed.join(", ") },
        }),
      );
    }
    return renderApiError(c, new ApiError("route_not_found", { message: `No route ${c.req.path}.` }));
  };
}
