import type { Database } from "../stores/db";
import { insertSession, type SessionKind } from "../stores/sessions";
import { hmacBase64Url, randomBase64Url, sha256Hex } from "./secrets";

/** Sessions last 30 days and slide: each use moves the expiry to 30 days after that use. */
export const SESSION_TTL_MS = 30 * 24 * 3600_000;
/** However often it is used, a session ends 90 days after sign-in (docs/decisions.md). */
export const SESSION_ABSOLUTE_MS = 90 * 24 * 3600_000;
/** Spec: `svc_ses_` + 43 base64url characters (32 random bytes). */
export const SESSION_TOKEN_PATTERN = /^svc_ses_[A-Za-z0-9_-]{43}$/;
/** The cookie's name without its `__Host-` prefix (Hono adds it with `prefix: "host"`). */
export const SESSION_COOKIE = "svc_session";

/** A new session's token (shown once), its stored SHA-256, and its expiry. */
export interface NewSession {
  token: string;
  tokenSha256: string;
  accountId: string;
  expiresAt: Date;
}

/** Makes and stores a session; only the token's SHA-256 is kept. */
export async function startSession(
  db: Database,
  accountId: string,
  kind: SessionKind,
  now: number = Date.now(),
): Promise<NewSession> {
  const token = `svc_ses_${randomBase64Url(32)}`;
  const tokenSha256 = await sha256Hex(token);
  const expiresAt = new Date(now + SESSION_TTL_MS);
  await insertSession(db, tokenSha256, accountId, kind, expiresAt);
  return { token, tokenSha256, accountId, expiresAt };
}

/**
 * The CSRF token of a session: an HMAC of the session's hash keyed with the console secret (43 characters),
 * so it needs no storage, changes with every session and cannot be derived without the secret.
 */
export function csrfTokenFor(secret: string, tokenSha256: string): Promise<string> {
  return hmacBase64Url(secret, `csrf\n${tokenSha256}`);
}
