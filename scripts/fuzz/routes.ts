import { OpenAPIHono } from "@hono/zod-openapi";
import { ERRORS, type ErrorCode } from "../../schema/errors";
import { ENDPOINTS } from "../../workers/app";
import type { AppEnv } from "../../workers/context/app-env";
import type { Services } from "../../workers/context/services";
import type { ConsoleSession } from "../../workers/context/session";
import type { Env } from "../../workers/env";
import { BODY_FIELDS } from "../../workers/http/console-body";
import { errorHandler } from "../../workers/middleware/error-handler";
import { requestId } from "../../workers/middleware/request-id";
import { type Endpoint, honoPath } from "../../workers/routes/define";
import type { KeyRecord } from "../../workers/stores/keys";

/** Every service, so the harness can put a stand-in for each (the compiler says when one is added). */
const SERVICE_NAMES = {
  db: true,
  keys: true,
  ledger: true,
  limits: true,
  addressLimits: true,
  admission: true,
  usage: true,
  refundIntents: true,
  engine: true,
  email: true,
  idp: true,
  signInLimits: true,
  maintenance: true,
  stripe: true,
  calibrations: true,
  checkoutLimits: true,
} as const satisfies Record<keyof Services, true>;

class ReachedServices extends Error {}

/** How one body ended on one route: its status and code, and whether it got past the body to a service. */
export interface RouteOutcome {
  status: number;
  code: string | undefined;
  /** The handler called a store or client: every check of the body before it passed. */
  passed: boolean;
}

/** A route that takes a body: its key (`METHOD /path`), the path to call, the top-level field names it reads. */
export interface BodyRoute {
  key: string;
  endpoint: Endpoint;
  url: string;
  fields: readonly string[];
}

/** Path ids that pass the routes' id checks (so the body is read), by the resource before them. */
const ID_PREFIX: Record<string, string> = {
  key: "key_",
  evaluation: "eval_",
  account: "acc_",
  review: "rev_",
  "review-rule": "rrule_",
};

const ENV = {
  CONSOLE_SECRET: "fuzz-console-secret-0123456789abcdefghij",
  STRIPE_SECRET_KEY: "sk_test_fuzz",
  STRIPE_WEBHOOK_SECRET: "whsec_fuzz",
  ADMIN_TOKEN: "fuzz-admin-token-0123",
  EMAIL_API_KEY: "re_fuzz",
  EMAIL_FROM: "svc <console@svc.test>",
} as unknown as Env;

const SESSION: ConsoleSession = {
  tokenSha256: "0".repeat(64),
  accountId: "acc_01JFUZZ0000000000000000000",
  kind: "app",
  expiresAt: Date.now() + 86_400_000,
  accountStatus: "active",
  email: "fuzz@example.com",
};
const KEY: KeyRecord = {
  id: "key_01JFUZZ0000000000000000000",
  accountId: SESSION.accountId,
  mode: "test",
  prefix: "svc_test_fuzz",
  scopes: ["decide", "usage:read", "balance:read"],
  name: "fuzz",
  created: 0,
  expiresAt: null,
  revokedAt: null,
  rpmLimit: null,
  tpmLimit: null,
  account: { status: "active", rpmLimit: null, tpmLimit: null },
};

/**
 * Every route that may take a body (all but GET), mounted without its auth on an app whose services all end
 * the request when used: a body is judged by the handler's own checks, and a body that gets to a service
 * passed them. The routes' field names come from a first call with `{}` (console bodies say which they read)
 * or from the route's declared request schema.
 */
export async function bodyRoutes(): Promise<{
  routes: BodyRoute[];
  call: (route: BodyRoute, bytes: Uint8Array) => Promise<RouteOutcome>;
}> {
  let reached = false;
  const stop = (): never => {
    reached = true;
    throw new ReachedServices("reached a service");
  };
  const standIn: object = new Proxy(() => {}, {
    get: (_t, p) => (p === "then" ? undefined : standIn),
    apply: stop,
  });
  const app = new OpenAPIHono<AppEnv>();
  app.use("*", requestId());
  app.use("*", async function fuzzContext(c, next) {
    for (const name of Object.keys(SERVICE_NAMES)) c.set(name as keyof Services, standIn as never);
    c.set("session", SESSION);
    c.set("apiKey", KEY);
    await next();
  });
  const declared = new Map<string, ReadonlySet<ErrorCode>>();
  const routes: BodyRoute[] = [];
  for (const e of ENDPOINTS) {
    const method = e.route.method.toUpperCase();
    if (method === "GET") continue;
    const path = honoPath(e.route.path);
    app.on([method], [path], e.handler);
    declared.set(`${method} ${path}`, e.codes);
    const url = `https://svc.test${e.route.path.replaceAll(/\/([\w-]+?)s?\/{[^}]+}/g, (_m, resource: string) => `/${resource}s/${ID_PREFIX[resource] ?? ""}01JFUZZ0000000000000000000`)}`;
    routes.push({ key: `${method} ${path}`, endpoint: e, url, fields: [] });
  }
  app.onError(errorHandler(declared));

  const call = async (route: BodyRoute, bytes: Uint8Array): Promise<RouteOutcome> => {
    reached = false;
    const init = {
      method: route.endpoint.route.method.toUpperCase(),
      headers: { "content-type": "application/json", "stripe-signature": "t=1,v1=00" },
      body: bytes,
    };
    const quiet = console.error;
    console.error = () => {};
    try {
      const res = await app.request(route.url, init, ENV);
      const text = await res.text();
      let code: string | undefined;
      try {
        code = (JSON.parse(text) as { error?: { code?: string } }).error?.code;
      } catch {}
      return { status: res.status, code, passed: reached };
    } finally {
      console.error = quiet;
    }
  };

  for (const r of routes) {
    await call(r, new TextEncoder().encode("{}"));
    const schema = (
      r.endpoint.route.request?.body?.content as
        | Record<string, { schema?: { shape?: Record<string, unknown> } }>
        | undefined
    )?.["application/json"]?.schema;
    r.fields = BODY_FIELDS.get(r.key) ?? Object.keys(schema?.shape ?? {});
  }
  return { routes, call };
}

/**
 * What is wrong with one route's answer, or [] when it is right: a 500 that is not a service stand-in's, a
 * code outside the catalogue or with another status, a code the route does not declare.
 */
export function judgeRoute(route: BodyRoute, outcome: RouteOutcome): string[] {
  if (outcome.passed || outcome.status < 400) return [];
  const problems: string[] = [];
  const code = outcome.code as ErrorCode | undefined;
  const spec = code ? ERRORS[code] : undefined;
  if (!spec) problems.push(`${route.key}: ${outcome.status} with code ${outcome.code} outside the catalogue`);
  else if (spec.status !== outcome.status)
    problems.push(`${route.key}: ${code} with status ${outcome.status}, catalogue ${spec.status}`);
  if (outcome.status >= 500) problems.push(`${route.key}: ${outcome.status} ${code} before any service`);
  if (code && !route.endpoint.codes.has(code)) problems.push(`${route.key}: ${code} is not declared`);
  return problems;
}
