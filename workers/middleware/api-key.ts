import type { MiddlewareHandler } from "hono";
import { checkKeyShape, hashApiKey } from "../../schema/api-key";
import type { Scope } from "../../schema/scopes";
import type { AppEnv } from "../context/app-env";
import { ApiError } from "../errors";
import { publishRateLimit, stampRateLimitHeaders } from "../limits/headers";
import { subjectOf } from "../limits/key-limits";
import { logEvent } from "../observability/log";
import type { KeyRecord } from "../stores/keys";

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/** The token of an `authorization: Bearer <token>` header, or undefined when absent or malformed. */
export function bearerToken(authorization: string | undefined): string | undefined {
  return authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
}

/**
 * The key's record after the 401 checks: `missing_api_key`, then `invalid_api_key` for a malformed header,
 * shape or checksum (no storage touched), then lookup by SHA-256 → unknown / revoked / expired.
 */
export async function authenticate(
  authorization: string | undefined,
  findByHash: (hash: string) => Promise<KeyRecord | null>,
  now: number = Date.now(),
): Promise<KeyRecord> {
  if (authorization === undefined || authorization.trim() === "") {
    throw new ApiError("missing_api_key", { message: "Send `authorization: Bearer <API_KEY>`." });
  }
  const secret = bearerToken(authorization);
  if (secret === undefined || checkKeyShape(secret) === null) {
    throw new ApiError("invalid_api_key", { message: "The API key is not valid." });
  }
  let record: KeyRecord | null;
  try {
    record = await findByHash(await hashApiKey(secret));
  } catch (err) {
    logEvent("error", "key_store_unreachable", { error: err instanceof Error ? err.name : "error" });
    throw new ApiError("maintenance", {
      message: "Key verification is temporarily unavailable.",
    });
  }
  if (record === null) throw new ApiError("invalid_api_key", { message: "The API key is not valid." });
  // Any revocation time counts: revoking is immediate, and the edge clock may lag the database's.
  if (record.revokedAt !== null) {
    throw new ApiError("revoked_api_key", { message: "The API key has been revoked." });
  }
  if (record.expiresAt !== null && record.expiresAt <= now) {
    throw new ApiError("expired_api_key", { message: "The API key has expired." });
  }
  return record;
}

/**
 * Requires a valid API key (every public route but the plan list): puts the record on the context as
 * `apiKey`, answers 403 `account_suspended` for a suspended account, and stamps the rate-limit headers on
 * every response after authentication.
 */
export function requireApiKey(): MiddlewareHandler<AppEnv> {
  return async function requireApiKeyMiddleware(c, next) {
    const record = await authenticate(c.req.header("authorization"), (h) => c.get("keys").findByHash(h));
    c.set("apiKey", record);
    if (record.account.status === "suspended") {
      throw new ApiError("account_suspended", { message: "The account is suspended." });
    }
    await next();
    // Routes that took nothing (and decides refused before step 8) show the real counts, read not consumed.
    if (!c.get("rateLimit")) {
      const state = await c.get("limits").current(subjectOf(record));
      if (state) publishRateLimit(c, state);
    }
    stampRateLimitHeaders(c);
  };
}

/** Requires `scope` on the authenticated key → else 403 `insufficient_scope`. Use after `requireApiKey`. */
export function requireScope(scope: Scope): MiddlewareHandler<AppEnv> {
  return async function requireScopeMiddleware(c, next) {
    if (!c.get("apiKey").scopes.includes(scope)) {
      throw new ApiError("insufficient_scope", { message: `This key lacks the \`${scope}\` scope.` });
    }
    await next();
  };
}
