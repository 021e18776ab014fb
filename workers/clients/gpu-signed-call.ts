import { SIGNATURE_HEADER, signRequest, TIMESTAMP_HEADER, verifyAnswer } from "../../schema/signing";
import { logEvent } from "../observability/log";

/** Sends a signed GET to the worker at `origin` (`/readyz`), ended after `timeoutMs`. */
export async function signedGet(
  secret: string,
  origin: string,
  path: string,
  timeoutMs: number,
): Promise<Response> {
  const headers = await signRequest(secret, { method: "GET", origin, path, body: "" });
  return fetch(`${origin}${path}`, { headers, signal: AbortSignal.timeout(timeoutMs) });
}

/** Sends a signed JSON POST to the worker at `origin`, ended after `timeoutMs` or by the caller's `signal`. */
export async function signedPost(
  secret: string,
  origin: string,
  path: string,
  body: string,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<Response> {
  const headers = await signRequest(secret, { method: "POST", origin, path, body });
  return fetch(`${origin}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body,
    signal: signal
      ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal])
      : AbortSignal.timeout(timeoutMs),
  });
}

/** Whether `res` (read as `text`) is signed by the worker at `origin` for `requestId` (`schema/signing.ts`). */
export async function signedBy(
  secret: string,
  origin: string,
  res: Response,
  text: string,
  requestId: string,
): Promise<boolean> {
  const verdict = await verifyAnswer(
    secret,
    { origin, requestId, body: text },
    res.headers.get(TIMESTAMP_HEADER),
    res.headers.get(SIGNATURE_HEADER),
  );
  if (!verdict.ok) logEvent("error", "gpu_answer_refused", { worker: origin, signature: verdict.reason });
  return verdict.ok;
}

/** A worker's JSON text (a body or a header) as a value; null when it is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
