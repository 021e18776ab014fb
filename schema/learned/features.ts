/**
 * The state's words as a state-reading calibration reads them (issue 49): one written procedure, the same in
 * the fit (an evaluation's items) and in a decide (the request's rendered state, exactly as billed):
 *
 * 1. Unicode NFC normalisation (`String.prototype.normalize("NFC")`), then `toLowerCase()` (locale-free).
 * 2. Tokens: maximal runs of letters and digits, `/[\p{L}\p{N}]+/gu`; the first MAX_TOKENS of them.
 * 3. Terms: every token (a word) and every two adjacent tokens joined by one space (a word pair).
 * 4. Each term hashed by FNV-1a 32-bit over its UTF-8 bytes into one of BUCKETS buckets (the hash's low bits).
 * 5. Counts per bucket, kept sorted by bucket: weighting (sublinear tf, idf, L2) is the model's (`apply.ts`).
 *
 * Only integer arithmetic here (`Math.imul`, `>>>`), so two machines give the same counts for the same text.
 */

/** Buckets of the hash: 2^18. */
export const BUCKET_BITS = 18;
export const BUCKETS = 1 << BUCKET_BITS;
/** Tokens read from the start of a state; the rest is not read (bounds a fit's memory and a decide's time). */
export const MAX_TOKENS = 2048;
/** The procedure's name, stored with each model: a model is applied only by the procedure it was fitted with. */
export const WORDS_PROCEDURE = "nfc-lower-letter-digit-runs-2048-words-pairs-fnv1a32-2^18";

const TOKEN = /[\p{L}\p{N}]+/gu;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;
const encoder = new TextEncoder();

/** FNV-1a 32-bit of `bytes`, continuing from `h` (FNV_OFFSET for a fresh hash). */
export function fnv1a(bytes: Uint8Array, h = FNV_OFFSET): number {
  let x = h >>> 0;
  for (let i = 0; i < bytes.length; i++) x = Math.imul(x ^ (bytes[i] as number), FNV_PRIME) >>> 0;
  return x;
}

/** A text's terms counted per bucket: `buckets` ascending, `counts[i]` the count of `buckets[i]`. */
export interface WordCounts {
  buckets: Uint32Array;
  counts: Uint16Array;
}

/** The text's tokens by the procedure's steps 1–2. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.normalize("NFC").toLowerCase().matchAll(TOKEN)) {
    out.push(m[0]);
    if (out.length === MAX_TOKENS) break;
  }
  return out;
}

const SPACE = new Uint8Array([0x20]);

/** The procedure: `text`'s words and word pairs counted per hash bucket. */
export function wordCounts(text: string): WordCounts {
  const counts = new Map<number, number>();
  const add = (h: number) => {
    const b = h & (BUCKETS - 1);
    counts.set(b, (counts.get(b) ?? 0) + 1);
  };
  let previous: number | null = null;
  for (const token of tokens(text)) {
    const bytes = encoder.encode(token);
    const word = fnv1a(bytes);
    add(word);
    // The pair "previous token", space, "token": its hash continues from the previous token's.
    if (previous !== null) add(fnv1a(bytes, fnv1a(SPACE, previous)));
    previous = word;
  }
  const buckets = Uint32Array.from(counts.keys()).sort();
  return {
    buckets,
    // A count above 65,535 cannot occur (at most 2 × MAX_TOKENS terms).
    counts: Uint16Array.from(buckets, (b) => counts.get(b) as number),
  };
}
