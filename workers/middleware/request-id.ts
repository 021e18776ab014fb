import type { MiddlewareHandler } from "hono";
import { monotonicFactory } from "ulid";
import { pooledRandom } from "../../schema/random-pool";
import type { AppEnv } from "../context/app-env";
import { isTokenHeader, validateTokenHeader } from "../http/token-header";

const nextUlid = monotonicFactory(pooledRandom);

/** A new request id: `req_` + a monotonic ULID (ids sort by time, even within one millisecond). */
export function newRequestId(): string {
  return `req_${nextUlid()}`;
}

/** Spec limit of `x-client-request-id`. */
export const CLIENT_REQUEST_ID_MAX = 128;

/**
 * Gives every request its id and stamps `x-request-id` (and a valid `x-client-request-id`) on every
 * response, errors included. Must be the app's first middleware. A malformed `x-client-request-id` is not
 * echoed; it is answered after authentication and scope (spec: order of checks), by `checkClientRequestId`.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    c.set("requestId", newRequestId());
    const sent = c.req.header("x-client-request-id");
    const valid = sent !== undefined && isTokenHeader(sent, CLIENT_REQUEST_ID_MAX);
    c.set("clientRequestId", valid ? sent : undefined);
    c.set("clientRequestIdMalformed", sent !== undefined && !valid);
    try {
      await next();
    } catch (thrown) {
      // Hono's onError only sees Error instances; anything else thrown would escape the envelope.
      throw thrown instanceof Error ? thrown : new Error(`non-Error thrown: ${typeof thrown}`);
    }
    stampRequestHeaders(c);
  };
}

/** Route middleware after auth and scope: a malformed `x-client-request-id` → 400 `invalid_header`. */
export function checkClientRequestId(): MiddlewareHandler<AppEnv> {
  return async function checkClientRequestIdMiddleware(c, next) {
    if (c.get("clientRequestIdMalformed"))
      validateTokenHeader(c.req.header("x-client-request-id"), "x-client-request-id", CLIENT_REQUEST_ID_MAX);
    await next();
  };
}

/** Puts `x-request-id` and the echoed client id on the current response (used by `onError` too). */
export function stampRequestHeaders(c: {
  get: <K extends "requestId" | "clientRequestId">(k: K) => AppEnv["Variables"][K];
  header: (name: string, value: string) => void;
}): void {
  const id = c.get("requestId");
  if (id) c.header("x-request-id", id);
  const clientId = c.get("clientRequestId");
  if (clientId !== undefined) c.header("x-client-request-id", clientId);
}
