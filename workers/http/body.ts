import { ApiError } from "../errors";

/** Spec: request body at most 256 KiB (more → 413 `body_too_large`). */
export const MAX_BODY_BYTES = 256 * 1024;

/**
 * Bodies outside the decide path's limits (the Stripe webhook, `/internal/*`): at most 1 MiB, far above
 * Stripe's largest events, read before any signature check or parse.
 */
export const MAX_OTHER_BODY_BYTES = 1024 * 1024;

const sizeText = (bytes: number) =>
  bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
const tooLarge = (limit: number) =>
  new ApiError("body_too_large", { message: `The body is over ${sizeText(limit)}.` });

/**
 * How much of an over-limit body is read and dropped, at most, before the 413 is answered: a client still sending
 * then reads the answer instead of a reset connection (HTTP servers' lingering close); past either bound the rest
 * is cancelled.
 */
const DRAIN_BYTES = 1024 * 1024;
const DRAIN_MS = 1_000;

async function drainThenCancel(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<void> {
  let seen = 0;
  const drained = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      seen += value.byteLength;
      if (seen > DRAIN_BYTES) return;
    }
  })().catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([drained, new Promise<void>((r) => (timer = setTimeout(r, DRAIN_MS)))]);
  clearTimeout(timer);
  await reader.cancel().catch(() => {});
}

/** The body's length as `content-length` declares it; null when absent or not a number of bytes. */
export function declaredLength(req: Request): number | null {
  const v = req.headers.get("content-length")?.trim();
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : null;
}

/**
 * Reads a request body with a running byte count, never holding more than `limit` bytes: a declared
 * `content-length` over the limit fails without reading it into memory; a stream (chunked, no length) fails as
 * soon as it passes the limit. Either way the rest is drained (bounded) before the 413, then cancelled.
 */
export async function readBodyLimited(req: Request, limit: number = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = declaredLength(req);
  if (declared !== null && declared > limit) {
    if (req.body) await drainThenCancel(req.body.getReader());
    throw tooLarge(limit);
  }
  if (req.body === null) return new Uint8Array(0);
  const reader = req.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await drainThenCancel(reader);
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const ch of chunks) {
    out.set(ch, at);
    at += ch.byteLength;
  }
  return out;
}

/** A body read with `readBodyLimited`, as UTF-8 text (malformed bytes replaced, as `Request.text()` does). */
export async function readTextLimited(req: Request, limit: number): Promise<string> {
  return new TextDecoder().decode(await readBodyLimited(req, limit));
}
