import { ApiError } from "../errors";

/** Spec: request body at most 256 KiB (more → 413 `body_too_large`). */
export const MAX_BODY_BYTES = 256 * 1024;

const tooLarge = () => new ApiError("body_too_large", { message: "The body is over 256 KiB." });

/**
 * Reads a request body with a running byte count, never holding more than `limit` bytes: a declared
 * `content-length` over the limit fails at once; a stream (chunked, no length) is cancelled as soon as it
 * passes the limit.
 */
export async function readBodyLimited(req: Request, limit: number = MAX_BODY_BYTES): Promise<Uint8Array> {
  const declared = req.headers.get("content-length");
  if (declared !== null && /^\d+$/.test(declared.trim()) && Number(declared.trim()) > limit) {
    await req.body?.cancel().catch(() => {});
    throw tooLarge();
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
      await reader.cancel().catch(() => {});
      throw tooLarge();
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
