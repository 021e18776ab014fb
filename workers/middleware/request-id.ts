import type { MiddlewareHandler } from "hono";
import { monotonicFactory } from "ulid";
import { ApiError } from "../errors";
import type { AppEnv } from "./context";

const nextUlid = monotonicFactory();

/** A new request id: `req_` + a monotonic ULID (ids sort by time, even within one millisecond). */
export function newRequestId(): string {
  return `req_${nextUlid()}`;
}

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * Validates a token header (spec: 1 to `max` printable ASCII characters 0x21–0x7E, no spaces).
 * Returns the value (or undefined when absent); throws 400 `invalid_header` with `param` = the header name.
 */
export function validateTokenHeader(
  value: string | undefined,
  name: string,
  max: number,
): string | undefined {
  if (value === undefined) return undefined;
  if (value.length < 1 || value.length > max || !PRINTABLE_ASCII.test(value)) {
    throw new ApiError("invalid_header", {
      param: name,
      message: `\`${name}\` must be 1 to ${max} printable ASCII characters without spaces.`,
    });
  }
  return value;
}

/** Spec limit of `x-client-request-id`. */
export const CLIENT_REQUEST_ID_MAX = 128;

/**
 * Gives every request its id and stamps `x-request-id` (and the valid `x-client-request-id`) on every
 * response, errors included. Must be the app's first middleware.
 */
export function requestId(): MiddlewareHandler<AppEnv> {
  return async function requestIdMiddleware(c, next) {
    c.set("requestId", newRequestId());
    c.set(
      "clientRequestId",
      validateTokenHeader(c.req.header("x-client-request-id"), "x-client-request-id", CLIENT_REQUEST_ID_MAX),
    );
    try {
      await next();
    } catch (thrown) {
      // Hono's onError only sees Error instances; anything else thrown would escape the envelope.
      throw thrown instanceof Error ? thrown : new Error(`non-Error thrown: ${typeof thrown}`);
    }
    stampRequestHeaders(c);
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
