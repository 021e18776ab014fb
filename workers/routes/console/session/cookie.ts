import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { csrfTokenFor, type NewSession, SESSION_COOKIE, SESSION_TTL_MS } from "../../../accounts/sessions";
import type { AppEnv } from "../../../context/app-env";

/** Sets `__Host-svc_session` (Secure, HttpOnly, SameSite=Lax, Path=/, 30 days). */
export function setSessionCookie(c: Context<AppEnv>, token: string): void {
  setCookie(c, SESSION_COOKIE, token, {
    prefix: "host",
    secure: true,
    httpOnly: true,
    sameSite: "Lax",
    path: "/",
    maxAge: SESSION_TTL_MS / 1000,
  });
}

/** Removes the session cookie (sign-out). */
export function clearSessionCookie(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { prefix: "host", secure: true, path: "/" });
}

/** The console session body of a signed-in browser. */
export async function sessionBody(
  secret: string,
  s: Pick<NewSession, "accountId" | "tokenSha256" | "expiresAt">,
  email: string | null,
) {
  return {
    object: "session" as const,
    account_id: s.accountId,
    email,
    csrf_token: await csrfTokenFor(secret, s.tokenSha256),
    expires_at: s.expiresAt.toISOString(),
  };
}
