import type { Context } from "hono";
import type { JsonValue } from "../../schema/json";
import type { AppEnv } from "../context/app-env";
import { readBodyLimited } from "../http/body";
import { checkContentType } from "../http/content-type";
import { parseJsonBody } from "../http/parse-json";
import { validateTokenHeader } from "../http/token-header";

/** Spec limit of `idempotency-key`. */
export const IDEMPOTENCY_KEY_MAX = 255;

/** What the front door hands to the rest of the decide pipeline. */
export interface FrontDoorResult {
  /** The parsed body, keys in the caller's order. */
  readonly body: JsonValue;
  /** The valid `idempotency-key`, if sent. */
  readonly idempotencyKey: string | undefined;
  /** Size of the raw body in bytes. */
  readonly bodyBytes: number;
}

/**
 * The 400/413 front door of POST /v1/decide, after auth and scope (route middleware), in this order:
 * `idempotency-key` header (400), body size (413), content type (400), strict JSON (400).
 */
export async function runFrontDoor(c: Context<AppEnv>): Promise<FrontDoorResult> {
  const idempotencyKey = validateTokenHeader(
    c.req.header("idempotency-key"),
    "idempotency-key",
    IDEMPOTENCY_KEY_MAX,
  );
  const bytes = await readBodyLimited(c.req.raw);
  checkContentType(c.req.header("content-type"), bytes.byteLength);
  const body = parseJsonBody(bytes);
  return { body, idempotencyKey, bodyBytes: bytes.byteLength };
}
