/**
 * Webhook signatures (issue 42): the service signs each call's raw body in
 * `svc-signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`, Stripe's scheme, the key being
 * the `whsec_…` secret's UTF-8 bytes as shown. Web Crypto only, so it runs in browsers, Node and Workers.
 */
import type { WebhookEvent } from "./batch-types.js";

/** The header a webhook call is signed in. */
export const WEBHOOK_SIGNATURE_HEADER = "svc-signature";
/** How far (seconds) a signature's `t` may be from the receiver's clock, either way, by default. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

/** Why a webhook call was not accepted. */
export type WebhookVerificationCode =
  | "missing_secret"
  | "missing_signature"
  | "malformed_signature"
  | "signature_mismatch"
  | "timestamp_out_of_tolerance"
  | "invalid_payload";

/** A webhook call that must not be trusted; `code` says why (answer it with a 400). */
export class WebhookVerificationError extends Error {
  constructor(
    readonly code: WebhookVerificationCode,
    message: string,
  ) {
    super(message);
    this.name = "WebhookVerificationError";
  }
}

/** The raw body exactly as received: a string, or its bytes (never a parsed object). */
export type WebhookPayload = string | Uint8Array | ArrayBuffer;

export interface VerifyOptions {
  /** Largest difference between `t` and `now`, seconds (default 300). */
  toleranceSeconds?: number;
  /** The receiver's clock, Unix seconds (default the current time). */
  now?: number;
}

/**
 * Checks a webhook call and answers its event: the header's `t` and one of its `v1` signatures must match the
 * raw body under `secret` (compared in constant time; any `v1` may match, so a rotated secret's calls pass),
 * and `t` must be within `toleranceSeconds` of `now`. Throws `WebhookVerificationError` otherwise.
 */
export async function verifyWebhook(
  payload: WebhookPayload,
  header: string | null | undefined,
  secret: string,
  options: VerifyOptions = {},
): Promise<WebhookEvent> {
  if (!secret) throw new WebhookVerificationError("missing_secret", "No webhook secret was given.");
  if (!header)
    throw new WebhookVerificationError("missing_signature", `No ${WEBHOOK_SIGNATURE_HEADER} header.`);
  const { timestamp, signatures } = parseSignatureHeader(header);
  const body = payloadBytes(payload);
  const expected = await hmacSha256(secret, concat(utf8(`${timestamp}.`), body));
  let matched = false;
  for (const candidate of signatures) matched = constantTimeEqual(hexBytes(candidate), expected) || matched;
  if (!matched)
    throw new WebhookVerificationError("signature_mismatch", "No signature matches the body and the secret.");
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - timestamp) > tolerance)
    throw new WebhookVerificationError(
      "timestamp_out_of_tolerance",
      `The signature's time is ${now - timestamp} s from now; at most ${tolerance} s is accepted.`,
    );
  return parseEvent(body);
}

/**
 * The `svc-signature` header the service would send for `payload` at `timestamp` (default now): for testing
 * your endpoint.
 */
export async function signWebhook(
  payload: WebhookPayload,
  secret: string,
  options: { timestamp?: number } = {},
): Promise<string> {
  if (!secret) throw new WebhookVerificationError("missing_secret", "No webhook secret was given.");
  const t = options.timestamp ?? Math.floor(Date.now() / 1000);
  const mac = await hmacSha256(secret, concat(utf8(`${t}.`), payloadBytes(payload)));
  return `t=${t},v1=${hex(mac)}`;
}

/** `client.webhooks`, also importable on its own: `import { webhooks } from "@svc/sdk"`. */
export const webhooks = {
  verify: verifyWebhook,
  sign: signWebhook,
  header: WEBHOOK_SIGNATURE_HEADER,
  toleranceSeconds: WEBHOOK_TOLERANCE_SECONDS,
} as const;

function parseSignatureHeader(header: string): { timestamp: number; signatures: string[] } {
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(",")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === "t" && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    else if (key === "v1") signatures.push(value);
  }
  if (timestamp === undefined || signatures.length === 0)
    throw new WebhookVerificationError(
      "malformed_signature",
      `${WEBHOOK_SIGNATURE_HEADER} needs t=<unix seconds> and at least one v1=<hex>.`,
    );
  return { timestamp, signatures };
}

function parseEvent(body: Uint8Array): WebhookEvent {
  try {
    const event = JSON.parse(
      new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(body),
    ) as unknown;
    if (typeof event === "object" && event !== null && !Array.isArray(event)) return event as WebhookEvent;
  } catch {
    // answered below
  }
  throw new WebhookVerificationError("invalid_payload", "The signed body is not a JSON object.");
}

function payloadBytes(payload: WebhookPayload): Uint8Array {
  if (typeof payload === "string") return utf8(payload);
  if (ArrayBuffer.isView(payload))
    return new Uint8Array(payload.buffer, payload.byteOffset, payload.byteLength);
  if (Object.prototype.toString.call(payload) === "[object ArrayBuffer]") return new Uint8Array(payload);
  throw new WebhookVerificationError(
    "invalid_payload",
    "Pass the raw body (a string or its bytes) as received, not a parsed object.",
  );
}

async function hmacSha256(secret: string, data: Uint8Array<ArrayBuffer>): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", utf8(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  return new Uint8Array(await crypto.subtle.sign("HMAC", key, data));
}

/** Equal bytes, in time that depends only on the lengths (a signature's length is public: 32 bytes). */
function constantTimeEqual(a: Uint8Array | undefined, b: Uint8Array): boolean {
  if (!a || a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return diff === 0;
}

function hexBytes(text: string): Uint8Array | undefined {
  if (!/^(?:[0-9a-fA-F]{2})+$/.test(text)) return undefined;
  const out = new Uint8Array(text.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(text.slice(2 * i, 2 * i + 2), 16);
  return out;
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

const utf8 = (text: string) => new TextEncoder().encode(text);

function concat(a: Uint8Array, b: Uint8Array): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}
