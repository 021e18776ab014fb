/**
 * Signed calls between the edge and the GPU workers, both ways, HMAC-SHA-256 with the pool's shared secret.
 * A call: `METHOD\nORIGIN\nPATH\nTIMESTAMP\nSHA256(body)`, ORIGIN the worker's own (`https://host:port`), so a
 * call captured on its way to one worker is refused by every other; 60 s window; each signature accepted once
 * by the worker that verifies it. An answer: `svc-gpu-answer-v1\nORIGIN\nREQUEST_ID\nTIMESTAMP\nSHA256(body)`,
 * so the edge uses (and bills) only what that worker said to that call. Web Crypto only (Worker and Node).
 */
import { constantTimeEqual } from "./constant-time";
import { hex, sha256Hex } from "./hex";
export const SIGNATURE_HEADER = "x-svc-signature";
export const TIMESTAMP_HEADER = "x-svc-timestamp";
export const SIGNATURE_WINDOW_SECONDS = 60;
/** The request id an answer to `GET /readyz` is bound to (a probe carries none of its own). */
export const READY_REQUEST_ID = "readyz";

const encoder = new TextEncoder();
const ANSWER_DOMAIN = "svc-gpu-answer-v1";

/**
 * Imported HMAC keys by secret (a process holds a handful: the pool's secret, a rotation's next one), so a signed
 * call does not import its key again; non-extractable, and kept only in memory. A full map is emptied. The keys
 * are kept, never the import's promise: in workerd a request must not await a promise another request started.
 */
const hmacKeys = new Map<string, CryptoKey>();
const MAX_HMAC_KEYS = 64;

async function hmacKey(secret: string): Promise<CryptoKey> {
  const kept = hmacKeys.get(secret);
  if (kept) return kept;
  const key = await crypto.subtle.importKey(
    "raw",
    encoder.encode(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  if (hmacKeys.size >= MAX_HMAC_KEYS) hmacKeys.clear();
  hmacKeys.set(secret, key);
  return key;
}

/** HMAC-SHA-256 of `message` keyed with `secret`, lower-case hex (Web Crypto). */
export async function hmacHex(secret: string, message: string): Promise<string> {
  return hex(await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(message)));
}

/** Origins by base URL: a pool names a few workers, each signed call and answer binds one. */
const origins = new Map<string, string>();
const MAX_ORIGINS = 1024;

/** The origin a worker's base URL names (`https://gpu-1.example.com`): what both signatures bind. */
export function workerOrigin(url: string): string {
  let origin = origins.get(url);
  if (origin === undefined) {
    origin = new URL(url).origin;
    if (origins.size >= MAX_ORIGINS) origins.clear();
    origins.set(url, origin);
  }
  return origin;
}

/** A call to a worker: `origin` is the worker's (the base URL the edge calls, `workerOrigin`). */
export interface SignedParts {
  method: string;
  origin: string;
  path: string;
  body: string | Uint8Array;
}

/** A worker's answer: the worker's origin, the call's request id and the answer's bytes. */
export interface AnswerParts {
  origin: string;
  requestId: string;
  body: string | Uint8Array;
}

async function canonical(parts: SignedParts, timestamp: string): Promise<string> {
  const origin = workerOrigin(parts.origin);
  return `${parts.method.toUpperCase()}\n${origin}\n${parts.path}\n${timestamp}\n${await sha256Hex(parts.body)}`;
}

async function answerCanonical(parts: AnswerParts, timestamp: string): Promise<string> {
  const origin = workerOrigin(parts.origin);
  return `${ANSWER_DOMAIN}\n${origin}\n${parts.requestId}\n${timestamp}\n${await sha256Hex(parts.body)}`;
}

async function headersFor(secret: string, message: (ts: string) => Promise<string>, nowSeconds: number) {
  const timestamp = String(nowSeconds);
  return {
    [TIMESTAMP_HEADER]: timestamp,
    [SIGNATURE_HEADER]: await hmacHex(secret, await message(timestamp)),
  };
}

const now = () => Math.floor(Date.now() / 1000);

/** Headers to add to a call to a GPU worker. */
export function signRequest(
  secret: string,
  parts: SignedParts,
  nowSeconds = now(),
): Promise<Record<string, string>> {
  return headersFor(secret, (ts) => canonical(parts, ts), nowSeconds);
}

/** Headers a worker adds to its answer (same header names as a call, another domain in the signed string). */
export function signAnswer(
  secret: string,
  parts: AnswerParts,
  nowSeconds = now(),
): Promise<Record<string, string>> {
  return headersFor(secret, (ts) => answerCanonical(parts, ts), nowSeconds);
}

export type VerifyResult =
  | { ok: true }
  | { ok: false; reason: "missing" | "stale" | "bad_signature" | "replayed" };

async function check(
  secret: string,
  message: (ts: string) => Promise<string>,
  timestamp: string | null | undefined,
  signature: string | null | undefined,
  nowSeconds: number,
): Promise<VerifyResult & { expected?: string }> {
  if (!timestamp || !signature || !/^[0-9]{1,12}$/.test(timestamp)) return { ok: false, reason: "missing" };
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS)
    return { ok: false, reason: "stale" };
  const expected = await hmacHex(secret, await message(timestamp));
  if (!constantTimeEqual(expected, signature.toLowerCase())) return { ok: false, reason: "bad_signature" };
  return { ok: true, expected };
}

/** Checks a worker's answer (the edge, before it uses or bills it): signed for this origin and request id. */
export async function verifyAnswer(
  secret: string,
  parts: AnswerParts,
  timestamp: string | null | undefined,
  signature: string | null | undefined,
  nowSeconds = now(),
): Promise<VerifyResult> {
  const { expected: _, ...verdict } = await check(
    secret,
    (ts) => answerCanonical(parts, ts),
    timestamp,
    signature,
    nowSeconds,
  );
  return verdict;
}

/**
 * Verifies calls to one worker (`origin`: its own base URL); `seen` remembers accepted signatures for the window
 * so a replay to this worker is refused, and the origin in the signed string refuses it at every other.
 */
export class SignatureVerifier {
  private readonly seen = new Map<string, number>();

  constructor(
    private readonly secret: string,
    private readonly origin: string,
  ) {}

  /** `once`: remember the signature (a call with effects); false for a read such as `GET /readyz`. */
  async verify(
    parts: Omit<SignedParts, "origin">,
    timestamp: string | null | undefined,
    signature: string | null | undefined,
    nowSeconds = now(),
    once = true,
  ): Promise<VerifyResult> {
    const full = { ...parts, origin: this.origin };
    const verdict = await check(this.secret, (ts) => canonical(full, ts), timestamp, signature, nowSeconds);
    if (!verdict.ok || !once) return verdict.ok ? { ok: true } : verdict;
    const expected = verdict.expected as string;
    for (const [sig, at] of this.seen) if (nowSeconds - at > SIGNATURE_WINDOW_SECONDS) this.seen.delete(sig);
    if (this.seen.has(expected)) return { ok: false, reason: "replayed" };
    this.seen.set(expected, Number(timestamp));
    return { ok: true };
  }
}

/** Whether `host` (a URL's hostname) is a loopback address: `localhost`, 127.0.0.0/8 or `[::1]`. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/.test(host);
}

/**
 * Whether the edge may call a worker at `url`: `https`, or `http` on a loopback address only (local
 * development: the hop never leaves the machine). Anything else would carry customer states in clear text.
 */
export function isAllowedWorkerUrl(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.username || u.password) return false;
  return u.protocol === "https:" || (u.protocol === "http:" && isLoopbackHost(u.hostname));
}
