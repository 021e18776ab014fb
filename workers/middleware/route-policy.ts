import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { requireApiKey, requireScope, type Scope } from "./auth";
import type { AppEnv } from "./context";

/** What a public route needs: a key with a scope, any valid key, or nothing. */
export type RoutePolicy = { scope: Scope } | "any-key" | "public";

/**
 * Per-route authentication (spec: Authentication → Scopes), keyed by `METHOD /path` as registered. A /v1
 * route missing here requires a valid key (fail closed), except console and webhook routes, which
 * authenticate themselves.
 */
export const ROUTE_POLICIES: Readonly<Record<string, RoutePolicy>> = {
  "POST /v1/decide": { scope: "decide" },
  "GET /v1/models": "any-key",
  "GET /v1/key": "any-key",
  "GET /v1/usage": { scope: "usage:read" },
  "GET /v1/balance": { scope: "balance:read" },
  "GET /v1/plans": "public",
};

const SELF_AUTHENTICATED = /^\/v1\/(console|webhooks)(\/|$)/;

/** The policy for a matched route, or null when the route authenticates itself. */
export function policyFor(method: string, routePath: string): RoutePolicy | null {
  const p = ROUTE_POLICIES[`${method} ${routePath}`];
  if (p !== undefined) return p;
  return SELF_AUTHENTICATED.test(routePath) ? null : "any-key";
}

const authenticate = requireApiKey();
const scopeChecks = new Map<Scope, MiddlewareHandler<AppEnv>>();

/**
 * Applies the matched route's policy: auth (401) then scope (403). Requests that match no route with their
 * method pass through untouched so routing answers 404/405 without asking for a key.
 */
export function routePolicy(): MiddlewareHandler<AppEnv> {
  return async function routePolicyMiddleware(c, next) {
    const route = matchedRoutes(c).find((r) => r.method !== "ALL");
    const policy = route ? policyFor(route.method, route.path) : null;
    if (policy === null || policy === "public") return next();
    if (policy === "any-key") return authenticate(c, next);
    let check = scopeChecks.get(policy.scope);
    if (!check) {
      check = requireScope(policy.scope);
      scopeChecks.set(policy.scope, check);
    }
    const scoped = check;
    return authenticate(c, () => scoped(c, next) as Promise<void>);
  };
}
