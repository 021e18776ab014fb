import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Handler, MiddlewareHandler } from "hono";
import type { ErrorCode } from "../../schema/errors";
import type { Scope } from "../../schema/scopes";
import { actAsAccount } from "../middleware/act-as-account";
import { requireAdminToken } from "../middleware/admin-token";
import { requireApiKey, requireScope } from "../middleware/api-key";
import type { AppEnv } from "../middleware/context";
import { checkClientRequestId } from "../middleware/request-id";
import { errorResponses } from "./responses";

/**
 * Who may call a route: anyone, any valid API key, a key with a scope, or the operator. `console-operator`
 * is TEMPORARY (billing before console sessions): the operator token acting for the account named in
 * `x-svc-act-as-account`; the console routes switch to the session auth by changing their `auth` line.
 */
export type RouteAuth = "public" | "any-key" | { scope: Scope } | "admin-token" | "console-operator";

/** Codes every route may answer: a malformed `x-client-request-id`, and a server fault. */
const EVERY_ROUTE: readonly ErrorCode[] = ["invalid_header", "internal_error"];
const API_KEY_CODES: readonly ErrorCode[] = [
  "missing_api_key",
  "invalid_api_key",
  "revoked_api_key",
  "expired_api_key",
  "account_suspended",
  "maintenance",
];

function authCodes(auth: RouteAuth): readonly ErrorCode[] {
  if (auth === "public") return [];
  if (auth === "admin-token") return ["invalid_api_key"];
  if (auth === "console-operator") return ["invalid_api_key", "invalid_session"];
  if (auth === "any-key") return API_KEY_CODES;
  return [...API_KEY_CODES, "insufficient_scope"];
}

function authMiddleware(auth: RouteAuth): MiddlewareHandler<AppEnv>[] {
  if (auth === "public") return [];
  if (auth === "admin-token") return [requireAdminToken()];
  if (auth === "console-operator") return [requireAdminToken(), actAsAccount()];
  if (auth === "any-key") return [requireApiKey()];
  return [requireApiKey(), requireScope(auth.scope)];
}

/** A route's declaration: the OpenAPI operation plus its auth and the error codes it may answer. */
export interface RouteDeclaration extends Omit<RouteConfig, "responses" | "security" | "middleware"> {
  auth: RouteAuth;
  /** Success responses; the error responses come from `errors` and the auth. */
  responses: RouteConfig["responses"];
  /** Codes the handler may raise beyond those of its auth and of every route. */
  errors: readonly ErrorCode[];
  /** Left out of the public OpenAPI document (operator routes). */
  hidden?: boolean;
}

/** A declared route with its handler, ready to mount. */
export interface Endpoint {
  readonly route: RouteConfig;
  readonly auth: RouteAuth;
  readonly codes: ReadonlySet<ErrorCode>;
  readonly hidden: boolean;
  readonly handler: Handler<AppEnv>;
}

/** Declares a route with `createRoute`: the auth requirement and every answer are on the declaration. */
export function endpoint(decl: RouteDeclaration, handler: Handler<AppEnv>): Endpoint {
  const { auth, errors, hidden, responses, ...operation } = decl;
  const codes = new Set<ErrorCode>([...EVERY_ROUTE, ...authCodes(auth), ...errors]);
  const route = createRoute({
    ...operation,
    security:
      auth === "public"
        ? []
        : auth === "admin-token" || auth === "console-operator"
          ? [{ admin: [] }]
          : [{ bearer: [] }],
    responses: { ...responses, ...errorResponses(codes) },
  });
  return { route, auth, codes, hidden: hidden ?? false, handler };
}

/** Hono's path syntax for an OpenAPI path (`/v1/keys/{id}` → `/v1/keys/:id`). */
export const honoPath = (openApiPath: string) => openApiPath.replaceAll(/\/{(.+?)}/g, "/:$1");

/**
 * Mounts endpoints: the auth middleware and the handler on the router (no generic validator: every handler
 * parses with the spec's precedence), the operation in the OpenAPI registry. Returns the declared codes by
 * `METHOD path` as the router reports matched routes.
 */
export function mountEndpoints(
  app: OpenAPIHono<AppEnv>,
  endpoints: readonly Endpoint[],
): Map<string, ReadonlySet<ErrorCode>> {
  const declared = new Map<string, ReadonlySet<ErrorCode>>();
  for (const e of endpoints) {
    const method = e.route.method.toUpperCase();
    const path = honoPath(e.route.path);
    if (!e.hidden) app.openAPIRegistry.registerPath(e.route);
    app.on([method], [path], ...authMiddleware(e.auth), checkClientRequestId(), e.handler);
    declared.set(`${method} ${path}`, e.codes);
  }
  return declared;
}
