import type { MiddlewareHandler } from "hono";
import { getCookie } from "hono/cookie";
import { sha256Hex } from "../accounts/secrets";
import {
  SESSION_ABSOLUTE_MS,
  SESSION_COOKIE,
  SESSION_TOKEN_PATTERN,
  SESSION_TTL_MS,
} from "../accounts/sessions";
import { consoleSecret, orMaintenance } from "../accounts/unavailable";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";
import { touchSession } from "../stores/sessions";
import { bearerToken } from "./api-key";
import { checkCsrf } from "./csrf";

const invalid = () => new ApiError("invalid_session", { message: "Sign in to the console." });

/**
 * The session token of a request: an app session as `authorization: Bearer svc_ses_…` (native apps, no
 * cookie, no CSRF), else the `__Host-svc_session` cookie (browsers).
 */
function sessionToken(c: Parameters<MiddlewareHandler<AppEnv>>[0]): {
  token: string;
  kind: "app" | "cookie";
} {
  const authorization = c.req.header("authorization");
  if (authorization !== undefined) {
    const token = bearerToken(authorization);
    if (!token || !SESSION_TOKEN_PATTERN.test(token)) throw invalid();
    return { token, kind: "app" };
  }
  const cookie = getCookie(c, SESSION_COOKIE, "host");
  if (!cookie || !SESSION_TOKEN_PATTERN.test(cookie)) throw invalid();
  return { token: cookie, kind: "cookie" };
}

/** The console's maintenance switch: 503 `maintenance` with the operator's `retry-after`, nothing done. */
export function consoleOpen(): MiddlewareHandler<AppEnv> {
  return async function consoleOpenMiddleware(c, next) {
    await c.var.maintenance.check();
    await next();
  };
}

/**
 * Console routes: maintenance (503), then the session — 401 `invalid_session` (missing, unknown, expired, or
 * a token of the other kind), 403 `account_suspended`, and with `csrf` 403 `csrf_failed` for cookie sessions.
 * Each use slides the session's expiry to 30 days later, never past 90 days after sign-in. Puts the session
 * on the context as `session`.
 */
export function requireSession(opts: { csrf: boolean }): MiddlewareHandler<AppEnv> {
  return async function requireSessionMiddleware(c, next) {
    await c.var.maintenance.check();
    const secret = consoleSecret(c.env);
    const { token, kind } = sessionToken(c);
    const hash = await sha256Hex(token);
    const session = await orMaintenance("sessions", () =>
      touchSession(c.var.db, hash, SESSION_TTL_MS, SESSION_ABSOLUTE_MS),
    );
    if (!session || session.kind !== kind) throw invalid();
    if (session.accountStatus === "suspended")
      throw new ApiError("account_suspended", { message: "The account is suspended." });
    if (opts.csrf && kind === "cookie") await checkCsrf(c.req.header("x-svc-csrf"), secret, hash);
    c.set("session", session);
    await next();
  };
}
