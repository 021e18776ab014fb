import { createRoute, type OpenAPIHono, type RouteConfig } from "@hono/zod-openapi";
import type { Context, Handler, MiddlewareHandler } from "hono";
import type { ErrorCode } from "../../schema/errors";
import type { Scope } from "../../schema/scopes";
import type { AppEnv } from "../context/app-env";
import { requireAdminToken } from "../middleware/admin-token";
import { requireApiKey, requireScope } from "../middleware/api-key";
import { checkClientRequestId } from "../middleware/request-id";
import { consoleOpen, requireSession } from "../middleware/session";
import { errorResponses } from "./responses";

/**
 * Who may call a route: anyone, any valid API key, a key with a scope, the operator, or the console:
 * `console-open` (sign-in: anyone while the console is not in maintenance), `session` (cookie or app
 * session) and `session+csrf` (state-changing: cookie sessions must send `x-svc-csrf`).
 */
export type RouteAuth =
  | "public"
  | "any-key"
  | { scope: Scope }
  | "admin-token"
  | "console-open"
  | "session"
  | "session+csrf";

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

const SESSION_CODES: readonly ErrorCode[] = ["maintenance", "invalid_session", "account_suspended"];

function authCodes(auth: RouteAuth): readonly ErrorCode[] {
  if (auth === "public") return [];
  if (auth === "console-open") return ["maintenance"];
  if (auth === "session") return SESSION_CODES;
  if (auth === "session+csrf") return [...SESSION_CODES, "csrf_failed"];
  if (auth === "admin-token") return ["invalid_api_key"];
  if (auth === "any-key") return API_KEY_CODES;
  return [...API_KEY_CODES, "insufficient_scope"];
}

function authMiddleware(auth: RouteAuth): MiddlewareHandler<AppEnv>[] {
  if (auth === "public") return [];
  if (auth === "console-open") return [consoleOpen()];
  if (auth === "session" || auth === "session+csrf")
    return [requireSession({ csrf: auth === "session+csrf" })];
  if (auth === "admin-token") return [requireAdminToken()];
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

function securityOf(auth: RouteAuth): Record<string, string[]>[] {
  if (auth === "public" || auth === "console-open") return [];
  if (auth === "admin-token") return [{ admin: [] }];
  if (auth === "session" || auth === "session+csrf") return [{ session: [] }, { appSession: [] }];
  return [{ bearer: [] }];
}

/** Declares a route with `createRoute`: the auth requirement and every answer are on the declaration. */
export function endpoint(decl: RouteDeclaration, handler: Handler<AppEnv>): Endpoint {
  const { auth, errors, hidden, responses, ...operation } = decl;
  const codes = new Set<ErrorCode>([...EVERY_ROUTE, ...authCodes(auth), ...errors]);
  const route = createRoute({
    ...operation,
    security: securityOf(auth),
    responses: { ...responses, ...errorResponses(codes) },
  });
  return { route, auth, codes, hidden: hidden ?? false, handler };
}

/** An API-key operation's declaration from which its console twin is derived (`apiAndConsole`). */
export type TwinDeclaration = Omit<RouteDeclaration, "auth"> & {
  operationId: string;
  path: string;
  /** Request parts only the console twin has (e.g. a query parameter choosing the mode). */
  consoleRequest?: RouteDeclaration["request"];
};

/** Who calls a pair of twins, read from the request: the API key's side and the console session's side. */
export interface TwinCallers<Caller> {
  api(c: Context<AppEnv>): Caller;
  console(c: Context<AppEnv>): Caller;
  /** Codes the API side's caller may raise (listed before the operation's own). */
  apiErrors?: readonly ErrorCode[];
  /** Runs each handler (e.g. a store outage answered 503 `maintenance`). */
  guard(run: () => Promise<Response>): Promise<Response>;
}

/**
 * An operation with an API key (scope `decide`) and its console twin, from one declaration and one handler:
 * the twin's path is under `/v1/console/`, its operation id has `Console` after the verb, and it takes the
 * session's account (writes, anything but GET, also need the CSRF header).
 */
export function apiAndConsole<Caller>(
  decl: TwinDeclaration,
  callers: TwinCallers<Caller>,
  serve: (c: Context<AppEnv>, caller: Caller) => Promise<Response>,
): [api: Endpoint, console: Endpoint] {
  const { consoleRequest, ...shared } = decl;
  const errors = [...(callers.apiErrors ?? []), ...shared.errors];
  const api = endpoint({ ...shared, auth: { scope: "decide" }, errors }, function apiTwinHandler(c) {
    return callers.guard(() => serve(c, callers.api(c)));
  });
  const consoleDecl: RouteDeclaration = {
    ...shared,
    path: shared.path.replace("/v1/", "/v1/console/"),
    operationId: shared.operationId.replace(/^([a-z]+)/, "$1Console"),
    auth: shared.method === "get" ? "session" : "session+csrf",
    request: { ...shared.request, ...consoleRequest },
  };
  const twin = endpoint(consoleDecl, function consoleTwinHandler(c) {
    return callers.guard(() => serve(c, callers.console(c)));
  });
  return [api, twin];
}

/** Twins listed as the API-key operations first, then their console twins (the document's order of paths). */
export function apisThenConsoles(twins: readonly (readonly [Endpoint, Endpoint])[]): Endpoint[] {
  return [...twins.map(([api]) => api), ...twins.map(([, twin]) => twin)];
}

/** Puts the route's operation id on the context first, so the request line names it even on a 401. */
function nameOperation(operationId: string | undefined): MiddlewareHandler<AppEnv> {
  return async function nameOperationMiddleware(c, next) {
    c.set("operationId", operationId);
    await next();
  };
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
    app.on(
      [method],
      [path],
      nameOperation(e.route.operationId),
      ...authMiddleware(e.auth),
      checkClientRequestId(),
      e.handler,
    );
    declared.set(`${method} ${path}`, e.codes);
  }
  return declared;
}
