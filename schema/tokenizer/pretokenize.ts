import { classOf, LETTER, NUMBER, OTHER, WHITESPACE } from "./categories";

/** A text as codepoints with their classes and UTF-16 offsets (offset[length] = text.length). */
export interface Scanned {
  length: number;
  cps: Int32Array;
  cls: Uint8Array;
  utf16: Int32Array;
}

/** Receives each pre-token; returning true stops the walk. */
export type Emit = (start: number, end: number) => boolean | undefined;

const OUT = 4; // outside the current chunk: llama.cpp's empty flags
const KEEP = 1 << 16; // scratch kept between calls up to 64 Ki units; larger texts get buffers of their own
const fresh = (size: number): Scanned => ({
  length: 0,
  cps: new Int32Array(size),
  cls: new Uint8Array(size),
  utf16: new Int32Array(size + 1),
});
let scratch = fresh(1024);

/** Decodes `text` into scratch buffers (valid until the next call); lone surrogates become U+FFFD. */
export function scan(text: string): Scanned {
  let buf = scratch;
  if (buf.cps.length < text.length) {
    buf = fresh(Math.max(text.length, KEEP));
    if (text.length <= KEEP) scratch = buf;
  }
  const { cps, cls, utf16 } = buf;
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    utf16[n] = i;
    if (cp >= 0xd800 && cp < 0xe000) {
      const lo = cp < 0xdc00 && i + 1 < text.length ? text.charCodeAt(i + 1) : 0;
      if (lo >= 0xdc00 && lo < 0xe000) {
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
        i++;
      } else cp = 0xfffd; // as V8 does when handing the string to native code as UTF-8
    }
    cps[n] = cp;
    cls[n] = cp < 0x80 ? ASCII[cp]! : classOf(cp);
    n++;
  }
  utf16[n] = text.length;
  buf.length = n;
  return buf;
}

const ASCII = Uint8Array.from({ length: 0x80 }, (_, cp) => classOf(cp));

/**
 * Calls `emit(start, end)` (codepoint indices) for each pre-token, exactly as llama.cpp's smollm pre-tokenizer:
 * first every \p{N} codepoint becomes its own chunk, then its hand-written GPT-2 splitter
 * (unicode_regex_split_custom_gpt2) runs inside each chunk.
 */
export function forEachPiece(s: Scanned, emit: Emit): void {
  const { cls, length } = s;
  let start = 0;
  for (let i = 0; i < length; i++) {
    if (cls[i] === NUMBER) {
      if ((i > start && splitChunk(s, start, i, emit)) || emit(i, i + 1)) return;
      start = i + 1;
    }
  }
  if (length > start) splitChunk(s, start, length, emit);
}

function flagAt(cls: Uint8Array, p: number, ini: number, end: number): number {
  return p >= ini && p < end ? cls[p]! : OUT;
}

function splitChunk(s: Scanned, ini: number, end: number, emit: Emit): boolean {
  const { cps, cls } = s;
  let pos = ini;
  while (pos < end) {
    const cpt = cps[pos]!;
    if (cpt === 0x27 && pos + 1 < end) {
      const next = cps[pos + 1]!;
      // 's 't 'm 'd
      if (next === 0x73 || next === 0x74 || next === 0x6d || next === 0x64) {
        if (emit(pos, pos + 2)) return true;
        pos += 2;
        continue;
      }
      if (pos + 2 < end) {
        const nn = cps[pos + 2]!;
        // 're 've 'll
        if (
          (next === 0x72 && nn === 0x65) ||
          (next === 0x76 && nn === 0x65) ||
          (next === 0x6c && nn === 0x6c)
        ) {
          if (emit(pos, pos + 3)) return true;
          pos += 3;
          continue;
        }
      }
    }
    const from = pos;
    let f2 = cpt === 0x20 ? flagAt(cls, pos + 1, ini, end) : cls[pos]!;
    if (f2 === LETTER || f2 === NUMBER || f2 === OTHER) {
      const want = f2;
      if (cpt === 0x20) pos++;
      while (f2 === want) f2 = flagAt(cls, ++pos, ini, end);
      if (emit(from, pos)) return true;
      continue;
    }
    let ws = 0;
    while (flagAt(cls, pos + ws, ini, end) === WHITESPACE) ws++;
    if (ws > 1 && pos + ws < end) {
      // \s+(?!\S): leave the last whitespace for the following word
      pos += ws - 1;
      if (emit(from, pos)) return true;
      continue;
    }
    if (ws > 0) {
      pos += ws;
      if (emit(from, pos)) return true;
      continue;
    }
    if (emit(pos, pos + 1)) return true;
    pos++;
  }
  return false;
}
