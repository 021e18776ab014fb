/**
 * Signed calls between the edge and the GPU workers: HMAC-SHA-256 over
 * `METHOD\nPATH\nTIMESTAMP\nSHA256(body)` with a shared secret; 60 s window; each signature is
 * accepted once (the verifier keeps a replay set). Web Crypto only, so the Worker and Node share it.
 */
import { constantTimeEqual } from "./constant-time";
export const SIGNATURE_HEADER = "x-svc-signature";
export const TIMESTAMP_HEADER = "x-svc-timestamp";
export const SIGNATURE_WINDOW_SECONDS = 60;

const encoder = new TextEncoder();

function hex(buf: ArrayBuffer): string {
  return [...new Uint8Array(buf)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function sha256Hex(data: string | Uint8Array): Promise<string> {
  const bytes = typeof data === "string" ? encoder.encode(data) : data;
  return hex(await crypto.subtle.digest("SHA-256", bytes));
}

async function hmacHex(secret: string, message: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return hex(await crypto.subtle.sign("HMAC", key, encoder.encode(message)));
}

export interface SignedParts {
  method: string;
  path: string;
  body: string | Uint8Array;
}

async function canonical(parts: SignedParts, timestamp: string): Promise<string> {
  return `${parts.method.toUpperCase()}\n${parts.path}\n${timestamp}\n${await sha256Hex(parts.body)}`;
}

/** Headers to add to a call to a GPU worker. */
export async function signRequest(
  secret: string,
  parts: SignedParts,
  nowSeconds = Math.floor(Date.now() / 1000),
): Promise<Record<string, string>> {
  const timestamp = String(nowSeconds);
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: await hmacHex(secret, await canonical(parts, timestamp)),
  };
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: "missing" | "stale" | "bad_signature" | "replayed" };

/** Verifies a signed call; `seen` remembers accepted signatures for the window so a replay is refused. */
export class SignatureVerifier {
  private readonly seen = new Map<string, number>();

  constructor(private readonly secret: string) {}

  async verify(
    parts: SignedParts,
    timestamp: string | null | undefined,
    signature: string | null | undefined,
    nowSeconds = Math.floor(Date.now() / 1000),
  ): Promise<VerifyResult> {
    if (!timestamp || !signature || !/^[0-9]{1,12}$/.test(timestamp)) return { ok: false, reason: "missing" };
    if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
      return { ok: false, reason: "stale" };
    const expected = await hmacHex(this.secret, await canonical(parts, timestamp));
    if (!constantTimeEqual(expected, signature.toLowerCase())) return { ok: false, reason: "bad_signature" };
    for (const [sig, at] of this.seen) if (nowSeconds - at > SIGNATURE_WINDOW_SECONDS) this.seen.delete(sig);
    if (this.seen.has(expected)) return { ok: false, reason: "replayed" };
    this.seen.set(expected, Number(timestamp));
    return { ok: true };
  }
}
